/* cudaoptics — LGPL-2.1-or-later
 *
 * The stand-in libnvbufsurface's EGL images (tests only; built with CUDA):
 * where CO_TEST_NVBUF_EGL is set and the machine has NVIDIA's EGL driver
 * (a headless EGL device, GLES 2 through libglvnd), NvBufSurfaceMapEglImage
 * of a 4-byte surface array gives a real EGLImage, of a GL texture, so
 * that the family's EGL interop path (cuGraphicsEGLRegisterImage, the
 * mapped EGL frame, its CUDA array) runs where no Jetson is.  A texture's
 * image is an array frame, as a block-linear Jetson surface is.  The
 * surface's pixels stay in its host memory: mapping copies them into the
 * texture, unmapping back, both through CUDA, as a Jetson's one DRAM
 * needs no copy at all.  EGL, GLES and libcuda are opened at run time;
 * no header of theirs is needed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <pthread.h>
#include <cuda_runtime.h>
#include "gstconvmm-abi.h"
#include "nvbufsurface-egl.h"

/* EGL and GLES values (EGL 1.5 and its extensions, GLES 2) */
#define EGL_NONE 0x3038
#define EGL_OPENGL_ES_API 0x30A0
#define EGL_CONTEXT_CLIENT_VERSION 0x3098
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_GL_TEXTURE_2D_KHR 0x30B1
#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE_MIN_FILTER 0x2801
#define GL_NEAREST 0x2600
#define GL_RGBA 0x1908
#define GL_UNSIGNED_BYTE 0x1401

typedef void *(*GetProc) (const char *);

static struct
{
  int ready;                    /* 1: images can be made, -1: never */
  void *dpy, *ctx;
  unsigned (*make_current) (void *, void *, void *, void *);
  void *(*create_image) (void *, void *, unsigned, void *, const int *);
  unsigned (*destroy_image) (void *, void *);
  void (*gen_textures) (int, unsigned *);
  void (*delete_textures) (int, const unsigned *);
  void (*bind_texture) (unsigned, unsigned);
  void (*tex_parameteri) (unsigned, unsigned, int);
  void (*tex_image) (unsigned, int, int, int, int, int, unsigned, unsigned,
      const void *);
  void (*finish) (void);
  CoCuGraphicsEGLRegisterImageFunc register_image;
  CoCuGraphicsResourceGetMappedEglFrameFunc get_frame;
  CoCuGraphicsUnregisterResourceFunc unregister;
} egl;
static pthread_mutex_t egl_lock = PTHREAD_MUTEX_INITIALIZER;

static int
init (void)
{
  void *lib = dlopen ("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
  void *gles = dlopen ("libGLESv2.so.2", RTLD_NOW | RTLD_GLOBAL);
  void *cuda = dlopen ("libcuda.so.1", RTLD_NOW);
  GetProc gpa = lib ? (GetProc) dlsym (lib, "eglGetProcAddress") : NULL;
  unsigned (*query_devices) (int, void **, int *);
  void *(*platform_display) (unsigned, void *, const int *);
  unsigned (*initialize) (void *, int *, int *);
  unsigned (*bind_api) (unsigned);
  void *(*create_context) (void *, void *, void *, const int *);
  const int ctx_attrs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
  void *dev = NULL;
  int n = 0;

  if (!gpa || !gles || !cuda || cudaFree (0) != cudaSuccess)
    return -1;
  query_devices = gpa ("eglQueryDevicesEXT");
  platform_display = gpa ("eglGetPlatformDisplayEXT");
  initialize = gpa ("eglInitialize");
  bind_api = gpa ("eglBindAPI");
  create_context = gpa ("eglCreateContext");
  egl.make_current = gpa ("eglMakeCurrent");
  egl.create_image = gpa ("eglCreateImageKHR");
  egl.destroy_image = gpa ("eglDestroyImageKHR");
  egl.gen_textures = dlsym (gles, "glGenTextures");
  egl.delete_textures = dlsym (gles, "glDeleteTextures");
  egl.bind_texture = dlsym (gles, "glBindTexture");
  egl.tex_parameteri = dlsym (gles, "glTexParameteri");
  egl.tex_image = dlsym (gles, "glTexImage2D");
  egl.finish = dlsym (gles, "glFinish");
  egl.register_image = dlsym (cuda, "cuGraphicsEGLRegisterImage");
  egl.get_frame = dlsym (cuda, "cuGraphicsResourceGetMappedEglFrame");
  egl.unregister = dlsym (cuda, "cuGraphicsUnregisterResource");
  if (!query_devices || !platform_display || !initialize || !bind_api ||
      !create_context || !egl.make_current || !egl.create_image ||
      !egl.destroy_image || !egl.gen_textures || !egl.delete_textures ||
      !egl.bind_texture || !egl.tex_parameteri || !egl.tex_image ||
      !egl.finish || !egl.register_image || !egl.get_frame ||
      !egl.unregister)
    return -1;
  if (!query_devices (1, &dev, &n) || n < 1 ||
      !(egl.dpy = platform_display (EGL_PLATFORM_DEVICE_EXT, dev, NULL)) ||
      !initialize (egl.dpy, NULL, NULL) || !bind_api (EGL_OPENGL_ES_API))
    return -1;
  /* no config, no surface (EGL_KHR_no_config_context, surfaceless) */
  egl.ctx = create_context (egl.dpy, NULL, NULL, ctx_attrs);
  return egl.ctx ? 1 : -1;
}

int
co_test_egl_available (void)
{
  pthread_mutex_lock (&egl_lock);
  if (!egl.ready)
    egl.ready = getenv ("CO_TEST_NVBUF_EGL") ? init () : -1;
  pthread_mutex_unlock (&egl_lock);
  return egl.ready > 0;
}

/* @host (rows of @pitch bytes) into or out of @image's array, through
 * CUDA (the device's primary context) */
static int
transfer (void *image, uint8_t * host, uint32_t pitch, uint32_t w,
    uint32_t h, int into_image)
{
  void *res = NULL;
  CoCUeglFrame f;
  cudaError_t err;

  if (cudaFree (0) != cudaSuccess || egl.register_image (&res, image, 0) != 0)
    return -1;
  memset (&f, 0, sizeof (f));
  if (egl.get_frame (&f, res, 0, 0) != 0 ||
      f.frameType != CO_CU_EGL_FRAME_TYPE_ARRAY) {
    egl.unregister (res);
    return -1;
  }
  err = into_image ?
      cudaMemcpy2DToArray ((cudaArray_t) f.frame.pArray[0], 0, 0, host, pitch,
      (size_t) w * 4, h, cudaMemcpyHostToDevice) :
      cudaMemcpy2DFromArray (host, pitch,
      (cudaArray_const_t) f.frame.pArray[0], 0, 0, (size_t) w * 4, h,
      cudaMemcpyDeviceToHost);
  egl.unregister (res);
  return err == cudaSuccess ? 0 : -1;
}

int
co_test_egl_map (uint8_t * host, uint32_t pitch, uint32_t w, uint32_t h,
    void **image, unsigned *texture)
{
  int ok = -1;

  if (!co_test_egl_available ())
    return -1;
  pthread_mutex_lock (&egl_lock);
  if (egl.make_current (egl.dpy, NULL, NULL, egl.ctx)) {
    egl.gen_textures (1, texture);
    egl.bind_texture (GL_TEXTURE_2D, *texture);
    egl.tex_parameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    egl.tex_image (GL_TEXTURE_2D, 0, GL_RGBA, (int) w, (int) h, 0, GL_RGBA,
        GL_UNSIGNED_BYTE, NULL);
    egl.finish ();
    *image = egl.create_image (egl.dpy, egl.ctx, EGL_GL_TEXTURE_2D_KHR,
        (void *) (uintptr_t) * texture, NULL);
    if (*image && transfer (*image, host, pitch, w, h, 1) == 0)
      ok = 0;
    else if (*image)
      egl.destroy_image (egl.dpy, *image);
    if (ok != 0)
      egl.delete_textures (1, texture);
    egl.make_current (egl.dpy, NULL, NULL, NULL);
  }
  pthread_mutex_unlock (&egl_lock);
  return ok;
}

int
co_test_egl_unmap (uint8_t * host, uint32_t pitch, uint32_t w, uint32_t h,
    void *image, unsigned texture)
{
  int ok;

  pthread_mutex_lock (&egl_lock);
  ok = transfer (image, host, pitch, w, h, 0);
  if (egl.make_current (egl.dpy, NULL, NULL, egl.ctx)) {
    egl.destroy_image (egl.dpy, image);
    egl.delete_textures (1, &texture);
    egl.make_current (egl.dpy, NULL, NULL, NULL);
  }
  pthread_mutex_unlock (&egl_lock);
  return ok;
}
