//! The test cases, grouped by area (`pipe.<area>.<feature>.<variant>`).

mod blit;
mod clear;
mod context;
mod draw;
mod screen;
mod transfer;
