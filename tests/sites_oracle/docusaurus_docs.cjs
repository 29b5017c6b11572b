// Docusaurus as the oracle: loads each site with Docusaurus' own loader (the
// first step of `docusaurus build`, which writes .docusaurus/ and no HTML) in
// each of its locales, and prints one JSON line per doc each docs plugin
// publishes: the site folder, locale, plugin id, version, whether it is the
// last version, and the doc's source, id and permalink. One process for every
// site: Docusaurus is loaded once.
//
// node docusaurus_docs.cjs <node_modules folder> <site folder>...
'use strict';

const path = require('path');

async function main() {
  const [modules, ...siteDirs] = process.argv.slice(2);
  const {loadSite, loadContext} = require(
    path.join(modules, '@docusaurus/core/lib/server/site.js'),
  );
  for (const siteDir of siteDirs) {
    await printSite(loadSite, loadContext, siteDir);
  }
}

async function printSite(loadSite, loadContext, siteDir) {
  const context = await loadContext({siteDir});
  for (const locale of context.i18n.locales) {
    const site = await loadSite({siteDir, locale});
    for (const plugin of site.props.plugins) {
      if (plugin.name !== 'docusaurus-plugin-content-docs') continue;
      for (const version of plugin.content.loadedVersions) {
        for (const doc of version.docs) {
          const row = {
            site: siteDir,
            locale,
            plugin: plugin.options.id,
            version: version.versionName,
            last: version.isLast,
            source: doc.source,
            id: doc.id,
            permalink: doc.permalink,
          };
          process.stdout.write(JSON.stringify(row) + '\n');
        }
      }
    }
  }
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
