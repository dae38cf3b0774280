"""Sphinx configuration of the course's web site (`make site`): `ddp_lessons/tooling/site.py` stages each
language's pages and runs Sphinx on them with ``-c docs/site``.

``DDP_SITE_CONTEXT`` names the JSON file the staging wrote: the language, where the other language's
site is, the alt text of each figure (by the SHA-256 of its PNG) and the language each page is written in.
"""
import json
import os
from html import escape
from pathlib import Path

from docutils import nodes

extensions = ["myst_nb"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["ddp-site.css"]
html_theme = "furo"
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {"top_of_page_buttons": []}
exclude_patterns = ["_site.json", "_locale", "examples/files"]
locale_dirs = ["_locale"]  # docs/site/locale, staged: the theme's words that Sphinx's own catalog lacks
master_doc = "index"
smartquotes = False  # the text as its authors wrote it (a Spanish page's English quote keeps its quotes)

# The notebooks are stored executed; the site shows those outputs and runs nothing.
nb_execution_mode = "off"
nb_merge_streams = True
nb_ipywidgets_js = {}  # no widget manager from a CDN: widgets show the HTML they stored
nb_output_stderr = "show"
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 4
html_math_renderer = "mathml"
suppress_warnings = ["mystnb.unknown_mime_type", "misc.highlighting_failure"]

SITE = json.loads(Path(os.environ["DDP_SITE_CONTEXT"]).read_text(encoding="utf-8"))
"""What the staging wrote for this language (`ddp_lessons.tooling.site.Site.context`)."""
language = SITE["lang"]
project = html_title = SITE["project"]
author = "the DDP course's authors"
copyright = "the DDP course's authors (MIT license)"
html_context = {"ddp_site": {key: SITE[key] for key in ("lang", "other_lang", "other_lang_name", "switch_label")}}


def _set_alt_text(app, doctree) -> None:
    """Each figure gets the alt text the staging found for its PNG (named by its SHA-256)."""
    alt = SITE["alt"]
    for image in doctree.findall(nodes.image):
        digest = Path(image["uri"]).stem
        if digest in alt:
            image["alt"] = alt[digest]


def _mathml(latex: str, display: str) -> str:
    """`latex` as MathML, which browsers draw without a script; as its source (and a warning, so a strict
    build fails) when latex2mathml does not know it."""
    from latex2mathml.converter import convert
    from sphinx.util import logging

    try:
        return convert(latex, display=display)
    except Exception as error:  # latex2mathml raises its own errors, and some of Python's, on LaTeX it lacks
        logging.getLogger(__name__).warning(f"math latex2mathml cannot draw ({error}): {latex}")
        return f"<code>{escape(latex)}</code>"


def _visit_inline_math(self, node) -> None:
    self.body.append(f'<span class="math">{_mathml(node.astext(), "inline")}</span>')
    raise nodes.SkipNode


def _visit_block_math(self, node) -> None:
    self.body.append(f'<div class="math">{_mathml(node.astext(), "block")}</div>')
    raise nodes.SkipNode


def _page_context(app, pagename, templatename, context, doctree) -> None:
    """Where the same page is in the other language's site, the language this page is written in, and
    what a search engine shows under its title."""
    context["ddp_other_url"] = "../" * pagename.count("/") + SITE["other_site"] + pagename + ".html"
    context["ddp_written_in"] = SITE["written_in"].get(pagename, SITE["lang"])
    description = SITE["descriptions"].get(pagename)
    if description:
        meta = f'<meta name="description" content="{escape(description)}">'
        context["metatags"] = context.get("metatags", "") + "\n" + meta


def setup(app):
    app.add_html_math_renderer("mathml", (_visit_inline_math, None), (_visit_block_math, None))
    app.connect("doctree-read", _set_alt_text)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
