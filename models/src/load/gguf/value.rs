//! GGUF metadata values.

/// One metadata value of a GGUF file.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GgufValue {
    /// `uint8`.
    U8(u8),
    /// `int8`.
    I8(i8),
    /// `uint16`.
    U16(u16),
    /// `int16`.
    I16(i16),
    /// `uint32`.
    U32(u32),
    /// `int32`.
    I32(i32),
    /// `uint64`.
    U64(u64),
    /// `int64`.
    I64(i64),
    /// `float32`.
    F32(f32),
    /// `float64`.
    F64(f64),
    /// `bool`.
    Bool(bool),
    /// `string` (UTF-8).
    String(String),
    /// `array` of values of one type.
    Array(Vec<GgufValue>),
}

impl GgufValue {
    /// The value as an unsigned integer, when it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::U8(v) => Some(v.into()),
            Self::U16(v) => Some(v.into()),
            Self::U32(v) => Some(v.into()),
            Self::U64(v) => Some(v),
            Self::I8(v) => u64::try_from(v).ok(),
            Self::I16(v) => u64::try_from(v).ok(),
            Self::I32(v) => u64::try_from(v).ok(),
            Self::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The value as a signed integer, when it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Self::I8(v) => Some(v.into()),
            Self::I16(v) => Some(v.into()),
            Self::I32(v) => Some(v.into()),
            Self::I64(v) => Some(v),
            _ => self.as_u64().and_then(|v| i64::try_from(v).ok()),
        }
    }

    /// The value as a float, when it is a float.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Self::F32(v) => Some(v.into()),
            Self::F64(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a boolean, when it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Self::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The elements, when the value is an array.
    pub fn as_array(&self) -> Option<&[GgufValue]> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    /// A short description of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::U8(_) => "uint8",
            Self::I8(_) => "int8",
            Self::U16(_) => "uint16",
            Self::I16(_) => "int16",
            Self::U32(_) => "uint32",
            Self::I32(_) => "int32",
            Self::U64(_) => "uint64",
            Self::I64(_) => "int64",
            Self::F32(_) => "float32",
            Self::F64(_) => "float64",
            Self::Bool(_) => "bool",
            Self::String(_) => "string",
            Self::Array(_) => "array",
        }
    }
}
