"""Where Material for MkDocs' blog plugin publishes a post (core.mkdocs_blog), as
its _format_path_for_post does; the posts are shaped like squidfunk/mkdocs-material's
docs/blog/posts/ (MIT), whose live URLs they reproduce."""

from __future__ import annotations

import datetime

from recall_gate.core.mkdocs_blog import MkDocsBlog, blog_post_path

BLOG = MkDocsBlog()


def test_a_post_is_published_at_its_date_and_its_titles_slug() -> None:
    # https://squidfunk.github.io/mkdocs-material/blog/2023/09/22/using-git-sparse-checkout-for-faster-documentation-builds/
    title = "Using `git sparse-checkout` for faster documentation builds"
    meta = {"date": datetime.date(2023, 9, 22), "categories": ["Build", "Performance"]}
    assert blog_post_path(["blog", "posts", "git-sparse-checkout"], meta, title, BLOG) == (
        "blog/2023/09/22/using-git-sparse-checkout-for-faster-documentation-builds"
    )


def test_front_matter_slug_and_date_created_are_the_posts() -> None:
    meta = {"date": {"created": "2024-08-19"}, "slug": "zensical"}
    assert blog_post_path(["blog", "posts", "x"], meta, "Any title", BLOG) == (
        "blog/2024/08/19/zensical"
    )


def test_the_url_format_categories_file_and_a_babel_date_pattern() -> None:
    blog = MkDocsBlog(
        blog_dir="news",
        post_dir="news/posts",
        url_format="{categories}/{date}/{file}",
        url_date_format="yyyy/M",
    )
    meta = {"date": "2024-01-05", "categories": ["Release Notes", "Build"]}
    assert blog_post_path(["news", "posts", "2024", "v1"], meta, "V1", blog) == (
        "news/release-notes/2024/1/v1"
    )


def test_the_slug_keeps_letters_of_any_script_and_drops_punctuation() -> None:
    meta = {"date": "2022-02-02"}
    assert blog_post_path(
        ["blog", "posts", "a"], meta, "Chinese search support – 中文搜索!", BLOG
    ) == ("blog/2022/02/02/chinese-search-support--中文搜索")


def test_a_page_outside_the_posts_or_without_a_date_is_no_post() -> None:
    assert blog_post_path(["blog", "index"], {"date": "2024-01-01"}, "Blog", BLOG) is None
    assert blog_post_path(["guide", "a"], {"date": "2024-01-01"}, "A", BLOG) is None
    assert blog_post_path(["blog", "posts", "a"], {}, "A", BLOG) is None
    # A date pattern field other than year, month, day: not guessed.
    odd = MkDocsBlog(url_date_format="yyyy/EEE")
    assert blog_post_path(["blog", "posts", "a"], {"date": "2024-01-01"}, "A", odd) is None


def test_slugs_and_dates_agree_with_the_plugins_own_slugify_and_babel() -> None:
    from babel.dates import format_date
    from pymdownx.slugs import slugify

    plugin_slugify = slugify(case="lower")
    titles = [
        "Blog support just landed",
        "Insiders now free for everyone",
        "The past, present and future",
        "MkDocs 2.0",
        "Search: better, faster, smaller",
        "Ünïcödé   spaces_and-dashes (v2)",
        "Goodbye, GitHub Discussions",
    ]
    for n, title in enumerate(titles, start=1):
        date = datetime.date(2023, n, n + 9)
        for pattern in ("yyyy/MM/dd", "yyyy/M/d", "yy-MM"):
            blog = MkDocsBlog(url_date_format=pattern)
            expected = (
                f"blog/{format_date(date, pattern, locale='en')}/{plugin_slugify(title, '-')}"
            )
            assert blog_post_path(["blog", "posts", "p"], {"date": date}, title, blog) == expected
