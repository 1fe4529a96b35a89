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
#endif
