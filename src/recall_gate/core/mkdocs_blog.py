"""Where Material for MkDocs' blog plugin publishes a post (pure).

A post under the blog's ``post_dir`` (``blog/posts/`` by default) is not
published at its file's path: the plugin moves it to
``<blog_dir>/<post_url_format>``, ``{date}/{slug}`` by default, so
``blog/posts/sparse.md`` dated 2023-09-22 and titled "Using git sparse-checkout"
is ``/blog/2023/09/22/using-git-sparse-checkout/``. As the plugin does
(material/plugins/blog: ``_format_path_for_post``): the date is the post's
``date`` (or ``date.created``) in ``post_url_date_format`` (a Babel pattern,
``yyyy/MM/dd``); the slug is front-matter ``slug:`` else the title slugified
(pymdownx ``slugify(case="lower")``: tags dropped, lower case, characters other
than letters, digits, ``_``, ``-`` and spaces dropped, each space the
separator); ``{categories}`` the first ``post_url_max_categories`` categories
slugified alike; ``{file}`` the file's name.
"""

from __future__ import annotations

import datetime
import posixpath
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MkDocsBlog", "blog_post_path"]

_TAGS = re.compile(r"</?[^>]*>")
_INVALID = re.compile(r"[^\w\- ]")
# Inline Markdown a rendered title loses: code ticks, emphasis stars, link targets.
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"[`*]")
# Babel date fields the URL patterns use, longest first.
_BABEL = {"yyyy": "%Y", "yy": "%y", "MM": "%m", "M": "{month}", "dd": "%d", "d": "{day}"}
_BABEL_FIELD = re.compile(r"yyyy|yy|MM|M|dd|d|[A-Za-z]")


@dataclass(frozen=True)
class MkDocsBlog:
    """The blog plugin's options that place a post (its defaults when unset)."""

    blog_dir: str = "blog"
    post_dir: str = "blog/posts"
    url_format: str = "{date}/{slug}"
    url_date_format: str = "yyyy/MM/dd"
    separator: str = "-"
    max_categories: int = 1


def _slugify(text: str, separator: str) -> str:
    slug = _TAGS.sub("", unicodedata.normalize("NFC", text)).strip().lower()
    return _INVALID.sub("", slug).replace(" ", separator)


def _rendered_title(title: str) -> str:
    return _MARKS.sub("", _LINK.sub(r"\1", title))


def _date(value: Any) -> datetime.date | None:
    if isinstance(value, Mapping):
        value = value.get("created")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _format_date(date: datetime.date, pattern: str) -> str | None:
    """A Babel date pattern of year, month and day fields (None: another field)."""
    out = []
    for piece in re.split(f"({_BABEL_FIELD.pattern})", pattern):
        if piece in _BABEL:
            out.append(date.strftime(_BABEL[piece]).format(month=date.month, day=date.day))
        elif piece and piece.isalpha():
            return None
        else:
            out.append(piece)
    return "".join(out)


def blog_post_path(
    path: Sequence[str], meta: Mapping[str, Any], title: str | None, blog: MkDocsBlog
) -> str | None:
    """The path (under the docs root, no slashes around) the blog publishes the
    post at ``path`` (its parts, without the extension) at; None when it is no
    post, or a field the URL needs is missing (the site would not build)."""
    post_dir = [p for p in blog.post_dir.split("/") if p]
    if len(path) <= len(post_dir) or list(path[: len(post_dir)]) != post_dir:
        return None
    date = _date(meta.get("date"))
    if date is None:
        return None
    date_text = _format_date(date, blog.url_date_format)
    slug = meta.get("slug")
    if not (isinstance(slug, str) and slug.strip()):
        slug = _slugify(_rendered_title(title), blog.separator) if title else None
    if date_text is None or not slug:
        return None
    categories = meta.get("categories")
    names = [c for c in categories if isinstance(c, str)] if isinstance(categories, list) else []
    try:
        formatted = blog.url_format.format(
            categories="/".join(_slugify(c, blog.separator) for c in names[: blog.max_categories]),
            date=date_text,
            file=path[-1],
            slug=slug.strip(),
        )
    except (KeyError, IndexError, ValueError):
        return None
    return posixpath.join(blog.blog_dir.strip("/"), posixpath.normpath(formatted.strip("/")))
