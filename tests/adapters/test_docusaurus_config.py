"""The docs plugin instances a Docusaurus config declares (adapters.docusaurus_config):
the preset's and each `content-docs` plugin's, from the config's text."""

from __future__ import annotations

from pathlib import Path

from recall_gate.adapters.docusaurus_config import DocsInstance, docs_instances

SITES = Path(__file__).resolve().parent.parent / "data" / "sites"


def test_react_natives_config_declares_the_preset_docs_and_three_plugin_instances() -> None:
    text = (SITES / "docusaurus-react-native" / "website" / "docusaurus.config.ts").read_text(
        encoding="utf-8"
    )
    found = {(i.plugin_id, i.path, i.route_base_path) for i in docs_instances(text)}
    assert found == {
        ("default", "../docs", None),
        ("architecture", "architecture", "/architecture"),
        ("contributing", "contributing", "/contributing"),
        ("community", "community", "/community"),
    }


def test_a_theme_configs_docs_object_is_no_docs_instance() -> None:
    # themeConfig.docs ({sidebar: {…}}) comes first here; the preset's is the one.
    text = """export default {
      themeConfig: {docs: {sidebar: {hideable: true}}},
      presets: [['classic', {docs: {routeBasePath: '/', path: 'guides'}}]],
    };"""
    assert docs_instances(text) == [DocsInstance(path="guides", route_base_path="/")]


def test_options_after_a_nested_object_or_a_brace_in_a_string_are_read() -> None:
    text = """module.exports = {plugins: [
      [require.resolve('@docusaurus/plugin-content-docs'), {
        editUrl: ({docPath}) => `https://x.org/edit/${docPath}`,
        admonitions: {keywords: ['note'], extendDefaults: true},
        id: 'api', path: 'api-docs', routeBasePath: 'api', lastVersion: 'current',
        onlyIncludeVersions: ['current', '2.x'], exclude: ['**/_*.md', "drafts/**"],
        versions: {'2.x': {label: '2'}, current: {label: 'Next', path: 'unreleased'}},
      }],
    ]};"""
    assert docs_instances(text)[1] == DocsInstance(
        plugin_id="api",
        path="api-docs",
        route_base_path="api",
        last_version="current",
        current_version_path="unreleased",
        only_include_versions=("current", "2.x"),
        exclude=("**/_*.md", "drafts/**"),
    )


def test_a_config_that_names_no_docs_options_has_the_default_instance() -> None:
    assert docs_instances("export default {title: 'x'};") == [DocsInstance()]


def test_a_plugin_instance_keeps_its_own_versions_file_and_translations() -> None:
    community = DocsInstance(plugin_id="community", path="community")
    assert community.versions_file == "community_versions.json"
    assert community.translations == "docusaurus-plugin-content-docs-community/current"
    assert DocsInstance().versions_file == "versions.json"
    assert DocsInstance().translations == "docusaurus-plugin-content-docs/current"


def test_options_a_const_holds_or_spreads_are_read_own_keys_first() -> None:
    text = """const common = {routeBasePath: 'ignored', lastVersion: 'current', editUrl: 'x'};
    const docsOptions = {...common, path: 'guides', routeBasePath: 'learn'};
    const api: PluginOptions = {id: 'api', path: 'api', ...common};
    export default {
      presets: [['classic', {docs: docsOptions, blog: false}]],
      plugins: [['@docusaurus/plugin-content-docs', api]],
    };"""
    assert docs_instances(text) == [
        DocsInstance(path="guides", route_base_path="learn", last_version="current"),
        DocsInstance(
            plugin_id="api", path="api", route_base_path="ignored", last_version="current"
        ),
    ]


def test_docs_false_or_an_unknown_name_is_no_instance_but_the_default() -> None:
    text = "export default {presets: [['classic', {docs: false, blog: blogOptions}]]};"
    assert docs_instances(text) == [DocsInstance()]
