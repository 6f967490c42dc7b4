//! The test cases, grouped by area (`pipe.<area>.<feature>.<variant>`).

mod clear;
mod context;
mod screen;
mod transfer;
