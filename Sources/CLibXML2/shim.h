#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// Debian builds libxml2 with ICU; importing ICU types next to Foundation breaks clean builds
// ("'UErrorCode' has different definitions in different modules"). We need no ICU API.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlwriter.h>
#include <libxml/xmlschemas.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

// libxml2 prints its own errors ("I/O error : No space left on device") on stderr; the writers
// report every failure themselves, in one sentence, so the library's text is silenced. Its
// handlers are per thread: each writer calls this on the thread that writes. (Swift cannot
// define the variadic handler itself.)
static void bgeo_libxml_ignore(void *context, const char *message, ...) { (void)context; (void)message; }
static void bgeo_libxml_ignore_structured(void *context, const xmlError *error) { (void)context; (void)error; }
static inline void bgeo_libxml_silence_errors(void) {
    xmlSetGenericErrorFunc(NULL, bgeo_libxml_ignore);
    xmlSetStructuredErrorFunc(NULL, (xmlStructuredErrorFunc)bgeo_libxml_ignore_structured);
}
#endif
