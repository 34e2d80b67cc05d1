"""``python -m corpus build`` writes the snapshots; ``python -m corpus tokens`` prints a token stream."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import snapshot, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corpus", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="count the books into corpus/<lang>.json")
    b.add_argument("--lang", choices=text.LANGS, action="append", help="default: both")
    b.add_argument("--source", type=Path, help="folder with alice.txt and nahan/ (default ../shared/corpus)")
    t = sub.add_parser("tokens", help="print the token stream, one token a line")
    t.add_argument("--lang", choices=text.LANGS, required=True)
    t.add_argument("--source", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            for lang in args.lang or text.LANGS:
                path = snapshot.snapshot_path(lang)
                path.write_text(snapshot.build(lang, args.source), encoding="utf-8")
                print(f"wrote {path}")
        else:
            out = sys.stdout
            for doc in text.read_documents(args.lang, args.source):
                out.write("\n".join(doc) + "\n")
    except text.SourceMissing as exc:
        print(f"python -m corpus: {exc} (pass --source DIR)", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
