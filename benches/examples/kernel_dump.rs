fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    print!("{}", benches::tensor::kernel_text(n, 1));
}
