/**
 * The product's own marks for the pages people read (guides, the API references): "Commerce API", never the
 * framework's or Swagger's logo. Plain SVG, so no image files ship beside the bundle.
 */
export const PRODUCT_NAME = 'Commerce API';

/** The mark alone: a won sign on a rounded square (favicon). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2b59c3"/><path d="M7 10l3.2 12L14 12l2 0 3.8 10L23 10" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/><path d="M6.5 15.5h19" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>`;

/** The mark and the name, white on the dark top bar of the reference pages and the guides. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="208" height="40" viewBox="0 0 208 40"><g transform="translate(2 4)"><rect width="32" height="32" rx="7" fill="#2b59c3"/><path d="M7 10l3.2 12L14 12l2 0 3.8 10L23 10" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/><path d="M6.5 15.5h19" stroke="#fff" stroke-width="2" stroke-linecap="round"/></g><text x="44" y="27" font-family="-apple-system, 'Segoe UI', Roboto, 'Noto Sans KR', 'NanumGothic', sans-serif" font-size="20" font-weight="700" fill="#ffffff">Commerce API</text></svg>`;
