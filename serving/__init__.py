"""What serving a classroom needs besides the pages: byte-bounded caches, the store of readers'
texts that every worker shares, and the front proxy's configuration (serving/nginx.py)."""
