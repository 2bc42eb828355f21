//! The backends bip runs models on, and the choice among them at run time: a [`Device`]
//! names one, and [`Device::run`] runs a [`BackendTask`] on it.
//!
//! # Example
//!
//! ```
//! use bip_models::backend::{BackendTask, Device};
//! use bip_models::burn::tensor::backend::Backend;
//! use bip_models::LlamaConfig;
//!
//! /// Builds a tiny model and reports its width, on whichever backend is picked.
//! struct Width;
//!
//! impl BackendTask for Width {
//!     type Output = usize;
//!     fn run<B: Backend>(self, device: &B::Device) -> usize {
//!         LlamaConfig::new(64, 32, 48, 1, 4, 2).init::<B>(device).hidden_size()
//!     }
//! }
//!
//! let device: Device = "cpu".parse().unwrap();
//! assert_eq!(device.run(Width).unwrap(), 32);
//! ```

use std::fmt;
use std::str::FromStr;

use burn::tensor::backend::Backend;

use crate::error::{ModelError, Result};

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

/// Where a model runs, chosen at run time: the CPU, or a CUDA GPU by ordinal.
///
/// Parsed from `cpu`, `cuda` (the first GPU) or `cuda:N`, and displayed the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// The CPU ([`Cpu`]).
    #[default]
    Cpu,
    /// The CUDA GPU of this ordinal (`Cuda`, with the `cuda` feature).
    Cuda(usize),
}

/// Work generic over the backend, which [`Device::run`] runs on the backend a [`Device`]
/// picks at run time. (A closure cannot be generic over a type, so the work is a type.)
pub trait BackendTask {
    /// What the work returns.
    type Output;

    /// Runs the work on `device` of backend `B`.
    fn run<B: Backend>(self, device: &B::Device) -> Self::Output;
}

impl Device {
    /// Runs `task` on this device's backend.
    ///
    /// # Errors
    ///
    /// [`ModelError::Device`] for a CUDA device when this build has no CUDA backend.
    pub fn run<T: BackendTask>(self, task: T) -> Result<T::Output> {
        match self {
            Self::Cpu => Ok(task.run::<Cpu>(&CpuDevice::default())),
            Self::Cuda(index) => run_cuda(task, index),
        }
    }
}

#[cfg(feature = "cuda")]
fn run_cuda<T: BackendTask>(task: T, index: usize) -> Result<T::Output> {
    Ok(task.run::<Cuda>(&CudaDevice::new(index)))
}

#[cfg(not(feature = "cuda"))]
fn run_cuda<T: BackendTask>(_task: T, index: usize) -> Result<T::Output> {
    Err(ModelError::Device {
        device: Device::Cuda(index).to_string(),
        problem: "this build has no CUDA backend (build with the `cuda` feature: \
                  `--features cuda`)"
            .into(),
    })
}

impl FromStr for Device {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self> {
        let bad = |problem: &str| ModelError::Device {
            device: s.to_string(),
            problem: problem.into(),
        };
        match s {
            "cpu" => Ok(Self::Cpu),
            "cuda" => Ok(Self::Cuda(0)),
            _ => {
                let index = s
                    .strip_prefix("cuda:")
                    .ok_or_else(|| bad("not a device (cpu, cuda or cuda:N)"))?;
                index
                    .parse()
                    .map(Self::Cuda)
                    .map_err(|_| bad("the GPU ordinal after `cuda:` is not a number"))
            }
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cpu => f.write_str("cpu"),
            Self::Cuda(index) => write!(f, "cuda:{index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse_and_display() {
        assert_eq!("cpu".parse::<Device>().unwrap(), Device::Cpu);
        assert_eq!("cuda".parse::<Device>().unwrap(), Device::Cuda(0));
        assert_eq!("cuda:3".parse::<Device>().unwrap(), Device::Cuda(3));
        for d in [Device::Cpu, Device::Cuda(0), Device::Cuda(2)] {
            assert_eq!(d.to_string().parse::<Device>().unwrap(), d);
        }
        let err = "gpu".parse::<Device>().unwrap_err().to_string();
        assert_eq!(err, "device gpu: not a device (cpu, cuda or cuda:N)");
        let err = "cuda:x".parse::<Device>().unwrap_err().to_string();
        assert!(err.contains("ordinal"), "{err}");
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn cuda_without_the_feature_is_an_error() {
        struct Nothing;
        impl BackendTask for Nothing {
            type Output = ();
            fn run<B: Backend>(self, _: &B::Device) {}
        }
        assert!(Device::Cpu.run(Nothing).is_ok());
        let err = Device::Cuda(1).run(Nothing).unwrap_err().to_string();
        assert!(
            err.starts_with("device cuda:1: this build has no CUDA"),
            "{err}"
        );
    }
}
