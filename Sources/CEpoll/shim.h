/* Linux epoll and eventfd (glibc), for the tile socket layer (RawTileLoop): Swift's Glibc module
   does not export them; nor a thread's kernel name (prctl is variadic). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

/* Names the calling thread as top -H and /proc show it (at most 15 bytes are kept). */
static inline int cepoll_name_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
