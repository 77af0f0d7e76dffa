// The annotations are inline functions of the header (include/CThreadSanitizer.h).
#include "CThreadSanitizer.h"
