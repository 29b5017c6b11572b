// The docs options of tests/data/sites/docusaurus-eventmesh/docusaurus.config.js
// (the classic preset's docs plugin and i18n), written out: the site's own config
// requires packages of its own. Its other docs instances (events, community)
// read folders the fixture does not hold. Released versions: the last one only.
module.exports = {
  title: 'Apache EventMesh',
  url: 'https://eventmesh.apache.org',
  baseUrl: '/',
  onBrokenLinks: 'warn',
  i18n: {defaultLocale: 'en', locales: ['en', 'zh']},
  presets: [
    [
      '@docusaurus/preset-classic',
      {
        docs: {sidebarPath: false, onlyIncludeVersions: ['current', 'v1.12.0']},
        blog: false,
        pages: false,
      },
    ],
  ],
};
