/** Safety stop for servers whose pagination cursor never ends: our own page walk and the client's. */
export const MAX_LIST_PAGES = 1000;
