//! The backends bip runs models on.

/// The CPU backend: burn-flex (rayon threads, SIMD kernels, f32 GEMM).
pub type Cpu = burn_flex::Flex;

/// The CPU backend's device.
pub type CpuDevice = burn_flex::FlexDevice;

/// The CUDA backend (burn-cuda; CUDA is loaded at run time).
#[cfg(feature = "cuda")]
pub type Cuda = burn_cuda::Cuda;

/// A CUDA device.
#[cfg(feature = "cuda")]
pub type CudaDevice = burn_cuda::CudaDevice;
