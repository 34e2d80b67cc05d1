"""The stores the views use to serve a classroom: byte-bounded caches, the lab's texts in this
process, the store of readers' texts that every worker shares, the server's own names. The
deployment that reads the app (the front proxy's configuration) is deploy/."""
