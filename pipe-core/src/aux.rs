//! Aux state machine (placeholder: being written).
