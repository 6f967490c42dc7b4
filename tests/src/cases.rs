//! The test cases, grouped by area (`pipe.<area>.<feature>.<variant>`).

mod blit;
mod clear;
mod compute;
mod context;
mod draw;
mod draw_id;
mod dynamic_state;
mod fbfetch;
mod gfxres;
mod layered;
mod merge;
mod polygon_mode;
mod prim;
mod rast_prim;
mod render;
mod render_cond;
mod review_s3;
mod review_vf;
mod screen;
mod state_fuzz;
mod state_reuse;
mod streamout;
mod transfer;
mod user_constants;
mod vertex_format;
mod vertex_format_gl;
