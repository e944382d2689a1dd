/* Linux epoll and eventfd (glibc), for the tile socket layer (RawTileLoop): Swift's Glibc module
   does not export them. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
