/** The `greythr` product: everything hrx needs of it (src/hrms/product-module.ts), listed by src/hrms/catalog.ts. */
import type { HrmsProductModule } from '../product-module';
import { GREYTHR_DEFINITION } from './definition';
import { GREYTHR_MAPPING } from './mapping';
import { GREYTHR_PRODUCT } from './product';

/** greytHR. */
export const product: HrmsProductModule<'greythr'> = {
  hrmsId: 'greythr',
  definition: GREYTHR_DEFINITION,
  info: GREYTHR_PRODUCT,
  startSim: async (options) => (await import('./sim/server')).startGreythrSim(options),
  docsPage: 'src/hrms/greythr/README.md',
  // One token, the lists of values (one POST, asked whatever the answer), /hr/v2/categories only
  // when category entries come without their descriptions, then `employees` and its sections
  // (SECTIONS in connector.ts) each read through at 200 a page. The sections are sparse (an
  // employee with no PF or separation is not listed), so their sizes are what the simulator
  // serves. Every answer says `pages.hasNext`, so a list ends on its last page (an exact multiple
  // of 200 costs nothing more) and an empty one still costs a request. Not counted: which lists
  // start at page 1 is undocumented, so the connector asks page 0 first; a 1-based list answers
  // it as page 1 and then repeats it for page 1 (sections.ts), one more request per such list of
  // more than one page.
  minSyncRequests: async (sim, pageSize) => {
    const listing = (await import('./sim/server')).greythrListing(sim);
    if (!listing) return Number.NaN;
    let n = 1 + 1 + (listing.categoriesWithoutDescs ? 1 : 0);
    for (const size of listing.sizes.values()) n += Math.max(1, Math.ceil(size / pageSize(200)));
    return n;
  },
  mapping: GREYTHR_MAPPING,
};
