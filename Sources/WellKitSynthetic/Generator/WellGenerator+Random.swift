extension WellGenerator {
    // MARK: - Random

    /// A xoshiro256** generator seeded through SplitMix64, with the few distributions the generator needs.
    ///
    /// Every draw uses only integer arithmetic and IEEE-754 `+ - * / sqrt` (plus ``Math``), so a given
    /// seed yields the same stream on every platform and compiler optimisation level.
    struct Random {
        private var s0: UInt64
        private var s1: UInt64
        private var s2: UInt64
        private var s3: UInt64
        private var spareGauss = 0.0
        private var hasSpareGauss = false

        /// Seeds the four state words from `seed` with SplitMix64, as the xoshiro authors recommend.
        init(seed: UInt64) {
            var sm = seed
            s0 = Random.splitMix64(&sm)
            s1 = Random.splitMix64(&sm)
            s2 = Random.splitMix64(&sm)
            s3 = Random.splitMix64(&sm)
        }

        /// Uses the raw state words; for reference test vectors only.
        init(state: (UInt64, UInt64, UInt64, UInt64)) {
            (s0, s1, s2, s3) = state
        }

        /// One SplitMix64 step: advances `state` and returns the mixed output.
        static func splitMix64(_ state: inout UInt64) -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return mix64(state)
        }

        /// The SplitMix64 finaliser, a good 64-bit avalanche mix.
        static func mix64(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        @inline(__always)
        private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 {
            (x &<< k) | (x &>> (64 &- k))
        }

        /// The next 64 raw bits.
        @inline(__always)
        mutating func next() -> UInt64 {
            let result = Random.rotl(s1 &* 5, 7) &* 9
            let t = s1 << 17
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = Random.rotl(s3, 45)
            return result
        }

        /// A uniform double in `[0, 1)` with 53 random bits.
        @inline(__always)
        mutating func unit() -> Double {
            Double(next() >> 11) * 0x1p-53
        }

        /// A uniform double in `[low, high)`.
        mutating func uniform(_ low: Double, _ high: Double) -> Double {
            low + (high - low) * unit()
        }

        /// `true` with probability `p`.
        mutating func chance(_ p: Double) -> Bool {
            unit() < p
        }

        /// A uniform integer in `0..<n` (Lemire's unbiased multiply-shift); `n` must be positive.
        mutating func below(_ n: Int) -> Int {
            precondition(n > 0, "below(_:) needs a positive bound")
            let bound = UInt64(n)
            var product = next().multipliedFullWidth(by: bound)
            if product.low < bound {
                let threshold = (0 &- bound) % bound
                while product.low < threshold {
                    product = next().multipliedFullWidth(by: bound)
                }
            }
            return Int(product.high)
        }

        /// A uniform integer in `range`, both ends included.
        mutating func int(in range: ClosedRange<Int>) -> Int {
            range.lowerBound + below(range.upperBound - range.lowerBound + 1)
        }

        /// A uniformly chosen element of a non-empty array.
        mutating func element<T>(of array: [T]) -> T {
            array[below(array.count)]
        }

        /// The index `i` of the first cumulative weight `>= u * total` (Python's `bisect_left`).
        mutating func pick(cumulative: [Double]) -> Int {
            let target = unit() * cumulative[cumulative.count - 1]
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let mid = (low + high) >> 1
                if cumulative[mid] < target { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// A normal deviate (Marsaglia's polar method, caching the second value of each pair).
        mutating func gauss(_ mean: Double, _ sigma: Double) -> Double {
            if hasSpareGauss {
                hasSpareGauss = false
                return mean + sigma * spareGauss
            }
            while true {
                let u = 2 * unit() - 1
                let v = 2 * unit() - 1
                let s = u * u + v * v
                guard s > 0, s < 1 else { continue }
                let factor = (-2 * Math.log(s) / s).squareRoot()
                spareGauss = v * factor
                hasSpareGauss = true
                return mean + sigma * u * factor
            }
        }

        /// A log-normal deviate: `exp(gauss(mu, sigma))`.
        mutating func logNormal(_ mu: Double, _ sigma: Double) -> Double {
            Math.exp(gauss(mu, sigma))
        }

        /// A gamma deviate for shape `alpha >= 1` and scale 1 (Marsaglia and Tsang, 2000).
        mutating func gamma(_ alpha: Double) -> Double {
            precondition(alpha >= 1, "gamma(_:) supports shape >= 1 only")
            let d = alpha - 1.0 / 3.0
            let c = 1.0 / (9.0 * d).squareRoot()
            while true {
                let x = gauss(0, 1)
                let t = 1 + c * x
                guard t > 0 else { continue }
                let v = t * t * t
                let u = unit()
                guard u > 0 else { continue }
                if Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v) {
                    return d * v
                }
            }
        }

        /// A beta deviate in `[0, 1]` for shapes `a, b >= 1`.
        mutating func beta(_ a: Double, _ b: Double) -> Double {
            let x = gamma(a)
            return x / (x + gamma(b))
        }

        /// A triangular deviate in `[low, high]` peaking at `mode` (same formula as Python's).
        mutating func triangular(_ low: Double, _ high: Double, _ mode: Double) -> Double {
            var u = unit()
            var c = (mode - low) / (high - low)
            var (low, high) = (low, high)
            if u > c {
                u = 1 - u
                c = 1 - c
                swap(&low, &high)
            }
            return low + (high - low) * (u * c).squareRoot()
        }
    }
}
