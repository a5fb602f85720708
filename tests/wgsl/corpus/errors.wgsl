fn f() -> i32 { let x: u32 = -1; return x }
struct { }
@compute fn main( {}
