// The docs options of tests/data/sites/docusaurus-react-native/website/docusaurus.config.ts
// (the classic preset's docs plugin reading '../docs', one locale), written out:
// the site's own config requires packages of its own. Released versions: the
// last one only.
module.exports = {
  title: 'React Native',
  url: 'https://reactnative.dev',
  baseUrl: '/',
  onBrokenLinks: 'warn',
  i18n: {defaultLocale: 'en', locales: ['en']},
  presets: [
    [
      '@docusaurus/preset-classic',
      {
        docs: {path: '../docs', sidebarPath: false, onlyIncludeVersions: ['current', '0.86']},
        blog: false,
        pages: false,
      },
    ],
  ],
};
