//! Python values to and from JSON text, through Python's own `json` module, so that
//! dictionaries, lists and strings of the episode formats cross over unchanged.

use pyo3::prelude::*;
use pyo3::types::PyString;

/// `value` as JSON text: a `str` is taken as JSON already; anything else goes through
/// `json.dumps`.
pub(crate) fn to_json(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text.to_str()?.to_string());
    }
    let json = value.py().import("json")?;
    json.call_method1("dumps", (value,))?.extract()
}

/// JSON text as Python values (`json.loads`).
pub(crate) fn from_json<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A serialisable value as Python values.
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    from_json(py, &text)
}
