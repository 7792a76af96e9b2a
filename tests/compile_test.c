/* Compile test: the header in declaration-only mode, then with the implementation, as C99 and as
   C++, with and without OSCAR_STATIC (see `make test-compile`). Runs a tiny smoke check. */
#include "../oscar.h" /* declarations only */
#include "../oscar.h" /* include guard holds */
#define OSCAR_IMPLEMENTATION
#include "../oscar.h"
#include <stdio.h>

int main(void) {
    float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    uint8_t codes[1];
    uint16_t sm[2];
    oscar_wht(x, 4);
    if (oscar_int2_quantize_row(codes, sm, x, 4, 4, 0.0f) != OSCAR_OK) return 1;
    if (oscar_result_string(OSCAR_ERR_POOL_FULL)[0] == 0) return 1;
#ifdef __cplusplus
    printf("compile test (C++%s): oscar %s ok\n",
#else
    printf("compile test (C%s): oscar %s ok\n",
#endif
#ifdef OSCAR_STATIC
           ", OSCAR_STATIC",
#else
           "",
#endif
           oscar_version());
    return 0;
}
