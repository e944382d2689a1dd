/* Linux epoll and eventfd (glibc), for the tile socket layer (RawTileLoop): Swift's Glibc module
   does not export them; nor a thread's kernel name (prctl is variadic), memfd_create and sendfile
   (TileFiles), or accept4. */
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Names the calling thread as top -H and /proc show it (at most 15 bytes are kept). */
static inline int cepoll_name_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

/* memfd_create and file seals are declared only under _GNU_SOURCE, which would change how this
   module sees glibc's types against Swift's Glibc module: the system call and the kernel's values. */
#define CEPOLL_MFD_CLOEXEC 0x0001U
#define CEPOLL_MFD_ALLOW_SEALING 0x0002U
#define CEPOLL_MFD_NOEXEC_SEAL 0x0008U
#define CEPOLL_F_ADD_SEALS 1033
#define CEPOLL_F_SEAL_SEAL 0x0001
#define CEPOLL_F_SEAL_SHRINK 0x0002
#define CEPOLL_F_SEAL_GROW 0x0004
#define CEPOLL_F_SEAL_WRITE 0x0008
/* A memory file holding a copy of `count` bytes, sealed so that nothing can change or resize it;
   -1 (errno set) when it cannot be made. */
static inline int cepoll_sealed_copy(const void *bytes, size_t count) {
    /* Not executable (kernels from 6.3 on warn of, or with vm.memfd_noexec=2 refuse, a memfd
       that does not say); older kernels refuse the flag, so without it then. */
    int fd = (int)syscall(SYS_memfd_create, "trailmap-tile", CEPOLL_MFD_CLOEXEC | CEPOLL_MFD_ALLOW_SEALING | CEPOLL_MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL) fd = (int)syscall(SYS_memfd_create, "trailmap-tile", CEPOLL_MFD_CLOEXEC | CEPOLL_MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < count) {
        ssize_t written = write(fd, (const char *)bytes + done, count - done);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) { int saved = errno; close(fd); errno = written < 0 ? saved : EIO; return -1; }
        done += (size_t)written;
    }
    if (fcntl(fd, CEPOLL_F_ADD_SEALS, CEPOLL_F_SEAL_WRITE | CEPOLL_F_SEAL_SHRINK | CEPOLL_F_SEAL_GROW | CEPOLL_F_SEAL_SEAL) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* sendfile(2) of `count` bytes from the start of `in` to `out`. */
static inline ssize_t cepoll_sendfile(int out, int in, size_t count) {
    off_t offset = 0;
    return sendfile(out, in, &offset, count);
}

/* accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC: the socket never exists without them (glibc
   declares accept4 only with _GNU_SOURCE, which this header must not define). */
static inline int cepoll_accept(int fd, struct sockaddr *address, socklen_t *length) {
    return (int)syscall(SYS_accept4, fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
