/* The library's version at run time (ctn_version, ctn_version_number): the numbers of the header it was
 * built with, so an application can tell the library it loaded from the header it was compiled against. */
#include <catena/catena.h>

#define CTN_STR_(x) #x
#define CTN_STR(x) CTN_STR_(x)

const char *ctn_version(void) {
    return CTN_STR(CATENA_VERSION_MAJOR) "." CTN_STR(CATENA_VERSION_MINOR) "." CTN_STR(CATENA_VERSION_PATCH);
}

int ctn_version_number(void) { return CATENA_VERSION_NUMBER; }
