package gosdk

// ClientLocale is clientLocale, for the tests of package gosdk_test.
var ClientLocale = clientLocale
