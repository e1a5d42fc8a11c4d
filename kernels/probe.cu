/* cudaoptics — LGPL-2.1-or-later
 * Compiled once at configure time: can this nvcc, with this host compiler,
 * build for the requested architectures?  If not, cuda=auto builds the CPU
 * backend alone instead of failing. */
__global__ void
co_probe (int *p)
{
  *p = 1;
}
