// SPDX-License-Identifier: MIT
/*
 * A CUDA program that makes a known number of runtime calls between
 * SIGUSR1 and its exit, built against the real shared libcudart.  Without
 * a GPU every call fails ("insufficient driver"), but each is a real call
 * into NVIDIA's library, which is what the probes see.
 */
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

__global__ void scale(float *x, float k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= k;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 10;
	float host[256] = { 0 };
	sigset_t block, old;
	int i;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* Its wait for the test's signal is bounded: SIGALRM ends it. */
	alarm(120);
	printf("cuda_sample pid=%d waiting for SIGUSR1\n", (int)getpid());
	fflush(stdout);
	while (!go)
		sigsuspend(&old);
	for (i = 0; i < calls; i++) {
		float *dev = NULL;
		cudaError_t err = cudaMalloc((void **)&dev, sizeof(host));

		cudaMemcpy(dev, host, sizeof(host), cudaMemcpyHostToDevice);
		scale<<<1, 256>>>(dev, 2.0f, 256);
		cudaFree(dev);
		if (i == 0)
			printf("cudaMalloc: %s\n", cudaGetErrorString(err));
	}
	printf("calls cudaMalloc %d\ncalls cudaMemcpy %d\ncalls cudaLaunchKernel %d\ncalls cudaFree %d\n",
	       calls, calls, calls, calls);
	return 0;
}
