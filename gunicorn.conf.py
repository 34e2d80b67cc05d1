"""gunicorn settings for serving specdec: `gunicorn 'app:create_app()'` reads this file.

serve.sh (what the README's run command starts) runs gunicorn behind nginx, on a unix socket in
a private run folder: nginx reads each request whole and buffers each answer, so the threads
below only ever serve complete requests at loopback speed. Every value can be overridden on the
command line (e.g. `--bind 127.0.0.1:8000`) or through GUNICORN_CMD_ARGS; WEB_CONCURRENCY sets
the number of worker processes.
"""
import gc
import multiprocessing
import os

# serve.sh sets a unix socket; loopback when gunicorn is run by hand.
bind = os.environ.get("SPECDEC_BIND", "127.0.0.1:5000")

# Rendering and the n-gram models are CPU work under the GIL, so parallelism comes from
# processes: one per core plus one to cover a worker busy in a slow request. Four threads each
# let a worker answer small requests while one of its threads renders or counts a text.
# gthread gives a thread to a connection from its first byte and has no time limit for reading
# a request's headers or body: facing clients directly, a dozen that send half a request and
# wait hold every thread (issue 16 measured a request waiting 89.6 s). That is why serve.sh puts
# nginx in front, which has those limits (deploy/nginx.py); run bare, gunicorn is for trusted
# clients only (benchmarks, development).
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
worker_class = "gthread"
threads = 4

# The worker's heartbeat, not a read timeout: a worker that has not reported for 30 s is stuck
# (the costliest request is a few tens of milliseconds of CPU, a 2 MB upload under a second, see
# views/api), so it is killed and another started.
timeout = 30
graceful_timeout = 20
# Browsers, or nginx's pool of upstream connections (it closes them after 4 s), reuse a
# connection for the next request.
keepalive = 5

# Load the app (and the models, below) once in the master; workers share the memory pages.
preload_app = True

# Bounded request line and headers: a huge query never reaches the app (gunicorn answers 414).
# Behind nginx (a unix socket) nginx's tighter bounds refuse first, as JSON: its 16 kB of headers
# cannot carry more fields than gunicorn's largest count, so gunicorn never refuses a request.
_behind_nginx = bind.startswith("unix:")
limit_request_line = 4094
limit_request_fields = 32768 if _behind_nginx else 100
limit_request_field_size = 8190

# gunicorn's socket: 0600 (serve.sh lets the group of nginx's workers in when started as root),
# in serve.sh's private run folder, so only nginx reaches it. gunicorn trusts X-Forwarded-* from
# a unix socket, i.e. from nginx, which always sets them; over TCP, from no address (run bare,
# gunicorn has no proxy in front, and a local client must not pick the scheme pages print).
umask = 0o177 if _behind_nginx else 0o022
forwarded_allow_ips = ""

accesslog = os.environ.get("SPECDEC_ACCESS_LOG")  # off unless asked for ("-" is stdout)
errorlog = "-"
loglevel = os.environ.get("SPECDEC_LOG_LEVEL", "info")
proc_name = "specdec"
# No admin socket in the home folder: nothing outside HTTP controls the server, and several
# servers (e.g. the load benchmark next to a running one) never contend for one path.
control_socket_disable = True


def when_ready(server):
    """Before the workers fork: load both languages' models and render the entry pages once.

    With preload_app the master holds the app; what it loads or caches here is inherited by
    every worker (copy-on-write), so the first readers do not each wait for a model load.
    """
    from sim import params as P
    from sim.ngram import load_models
    from corpus.text import LANGS  # the app is loaded by now (preload_app)
    from sim.tree import acceptance, budget_table, tree_tubes_context
    from views.sections.shared import default_context

    for lang in LANGS:
        load_models(lang)
        default_context(lang)  # chosen from the data once, then cached
        # Token trees (the `trees` section): the tubes' context, the acceptance every shape is fitted to,
        # and the budget table at the page's k and d for every draft (about 0.8 s in all, then
        # kept: a new table costs a request 0.1 to 0.3 s, bench/cpu.py --tree).
        tree_tubes_context(lang)
        for draft in P.DRAFTS:
            acceptance(lang, draft)
            budget_table(lang, draft, P.TREE_K.default, P.TREE_D.default)
    _warm_app(server)
    # Everything the master holds is now out of reach of CPython's cyclic collector (as Python's
    # documentation advises before a fork): a worker's full collections walk only the objects it
    # made since, not the app and the models (some 10^5 objects; a full collection of them took
    # up to 75 ms on a 2-core machine, a pause for whichever request set it off), and they no
    # longer write to the master's pages, which stay shared.
    gc.collect()
    gc.freeze()


def _warm_app(server):
    """The text store's line in the log, and the entry pages rendered into the render cache."""
    from corpus.text import LANGS
    app = server.app.callable
    if app is None or not hasattr(app, "test_client"):
        return
    # The readers' texts' store, made now so its trouble (a folder that cannot be made, given
    # up for another) is in the log at start-up, and inherited by every worker.
    from serving import textstore
    with app.app_context():
        server.log.info("text store: %s", textstore.describe(textstore.current()))
    client = app.test_client()
    headers = {"Accept-Encoding": "gzip, deflate, br, zstd"}
    # The render cache is keyed by Host (pages print their own address), so warm it under the
    # address readers use: the server's first name (SPECDEC_HOSTS, which serve.sh sets), else
    # each TCP address gunicorn binds.
    from serving.hosts import parse_hosts
    named = parse_hosts(os.environ.get("SPECDEC_HOSTS"))[:1]
    hosts = named or [a for a in server.cfg.bind if not a.startswith(("unix:", "fd://"))] or ["localhost"]
    for host in hosts:
        for lang in LANGS:
            for path in (f"/{lang}/specdec/", f"/embed/{lang}/specdec/"):
                resp = client.get(path, headers=headers, base_url=f"http://{host}")
                server.log.info("warmed http://%s%s: %s", host, path, resp.status_code)
