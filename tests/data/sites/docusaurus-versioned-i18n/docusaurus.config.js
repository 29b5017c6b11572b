// A synthetic Docusaurus site (see README.md): versioned docs in English and
// Chinese, as the classic preset lays them out.
module.exports = {
  title: 'Versioned i18n example',
  url: 'https://docs.example.org',
  baseUrl: '/',
  onBrokenLinks: 'warn',
  i18n: {
    defaultLocale: 'en',
    locales: ['en', 'zh'],
  },
  presets: [
    [
      'classic',
      {
        docs: {
          sidebarPath: false,
        },
        blog: false,
        pages: false,
      },
    ],
  ],
};
