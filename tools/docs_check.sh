#!/usr/bin/env bash
# The documentation leg of CI (issue 27): build the MkDocs site with warnings
# as errors, check its links offline, and open the home page in headless
# Chromium to check that it renders with the benchmark picture.
#
#   tools/docs_check.sh [OUTDIR]     (default: a temporary directory, removed)
#
# Installs what it needs: the docs packages into the current Python
# environment (by name, the `docs` extra's ranges: installing ".[docs]" would
# rebuild ccgym), and Debian's chromium if it is missing (apt, as root).
# Needs ccgym importable (mkdocstrings reads the installed package's
# docstrings; the refused-values tables ask the installed ccgym) and Pillow
# (the test extra) for the screenshot check. The screenshot is kept as
# OUTDIR/home.png (CCGYM_DOCS_SCREENSHOT=path copies it there as well).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ $# -ge 1 ]; then
  OUT=$1
  mkdir -p "$OUT"
else
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi
SITE=$OUT/site

python -m pip install --quiet "mkdocs>=1.6,<2" "mkdocs-material>=9.5" "mkdocstrings[python]>=0.26" pillow

# 1. The site, warnings as errors (mkdocs.yml sets strict and the link
#    validation: every Markdown link and anchor must resolve).
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "$SITE"

# 2. Offline link check of the built HTML (every relative href/src points at
#    a file of the site, every #anchor at an id of its page) and of README.md
#    (its relative links point at files of the repository). External links are
#    not fetched.
python - "$SITE" "$ROOT" <<'PY'
import html.parser, pathlib, re, sys, urllib.parse

site, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])

pages = {}
for f in site.rglob("*.html"):
    p = Page()
    p.feed(f.read_text(encoding="utf-8"))
    pages[f.resolve()] = p
bad = []
for f, p in pages.items():
    for link in p.links:
        u = urllib.parse.urlsplit(link)
        if u.scheme or link.startswith("//") or link.startswith("mailto:"):
            continue
        base = site if u.path.startswith("/") else f.parent  # 404.html links from the root
        target = f if not u.path else (base / urllib.parse.unquote(u.path).lstrip("/")).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            bad.append(f"{f.relative_to(site)}: {link} (no such file)")
        elif u.fragment and target in pages and u.fragment not in pages[target].ids:
            bad.append(f"{f.relative_to(site)}: {link} (no such anchor)")
readme = (root / "README.md").read_text(encoding="utf-8")
for link in re.findall(r"\]\(([^)\s]+)\)", readme):
    u = urllib.parse.urlsplit(link)
    if u.scheme or not u.path:
        continue
    if not (root / u.path).exists():
        bad.append(f"README.md: {link} (no such file)")
if bad:
    sys.exit("broken links:\n  " + "\n  ".join(bad))
print(f"links: {sum(len(p.links) for p in pages.values())} in {len(pages)} pages, README.md: ok")
PY

# 3. The home page in headless Chromium: the screenshot must show the page
#    with the benchmark picture (the picture's plot colours present).
if ! command -v chromium >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
SHOT=$OUT/home.png
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --no-first-run --disable-extensions --user-data-dir="$OUT/chromium-profile" \
  --window-size=1280,2200 --virtual-time-budget=5000 \
  --screenshot="$SHOT" "file://$SITE/index.html" >/dev/null 2>&1
python - "$SHOT" <<'PY'
import sys
from PIL import Image

img = Image.open(sys.argv[1]).convert("RGB")
assert img.size == (1280, 2200), img.size
pixels = list(img.getdata())
colours = len(set(pixels))
# The plot's bars: viridis yellow (N=16384) and dark purple (N=1).
yellow = sum(1 for r, g, b in pixels if r > 220 and g > 200 and b < 90)
purple = sum(1 for r, g, b in pixels if r < 90 and g < 30 and b > 60)
assert colours > 500, f"the screenshot looks blank ({colours} colours)"
assert yellow > 2000 and purple > 2000, (
    f"no benchmark picture in the screenshot (yellow {yellow}, purple {purple} pixels)")
print(f"screenshot {sys.argv[1]}: {img.size[0]}x{img.size[1]}, {colours} colours, "
      f"bench picture present ({yellow} yellow, {purple} purple pixels)")
PY
if [ -n "${CCGYM_DOCS_SCREENSHOT:-}" ]; then
  cp "$SHOT" "$CCGYM_DOCS_SCREENSHOT"
fi
echo "docs check: ok"
