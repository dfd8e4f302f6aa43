/**
 * The first Intl call of a page makes V8 build ICU's list of locales: about 15 ms on a
 * desktop, some 70 ms at 4× CPU, in whichever task makes it. react-intl makes it when its
 * provider is created (it checks the locale with supportedLocalesOf) and again for any
 * message with values (intl-messageformat resolves its locale the same way), i.e. while
 * React renders the first screen. Called on its own, the cost is a short task of its own.
 */
export function warmUpIntl(): void {
  try {
    Intl.NumberFormat.supportedLocalesOf('en');
    Intl.DateTimeFormat.supportedLocalesOf('en');
  } catch {
    // An engine without Intl fails later, where react-intl reports it.
  }
}
