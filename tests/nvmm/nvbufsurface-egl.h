/* cudaoptics — LGPL-2.1-or-later
 *
 * The stand-in libnvbufsurface's real EGL images (nvbufsurface-egl.c).
 */
#ifndef CO_TEST_NVBUFSURFACE_EGL_H
#define CO_TEST_NVBUFSURFACE_EGL_H

#include <stdint.h>

/* 1 where CO_TEST_NVBUF_EGL is set and NVIDIA's EGL makes images */
int co_test_egl_available (void);
/* A new EGLImage (*@image, of GL texture *@texture) holding the 4-byte
 * pixels of @host; 0 on success */
int co_test_egl_map (uint8_t * host, uint32_t pitch, uint32_t w, uint32_t h,
    void **image, unsigned *texture);
/* The image's pixels back into @host, the image and texture freed */
int co_test_egl_unmap (uint8_t * host, uint32_t pitch, uint32_t w,
    uint32_t h, void *image, unsigned texture);

#endif
