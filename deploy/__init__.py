"""Deployment: what runs the app in front of readers (the front proxy's configuration). It reads
the app; the app and its views read the stores in serving/, never this."""
