import WellKit

extension WellGenerator {
    // MARK: - Math

    /// Platform-independent `log`, `exp`, `cos` and `pow` built from IEEE-754 basic operations only.
    ///
    /// The system libm may differ in the last bit between glibc versions, CPU architectures and
    /// Darwin; a one-ulp difference can flip a branch and change the whole generated file. These
    /// series are accurate to about 1e-15 relative, which is ample for synthetic data.
    enum Math {
        static let ln2 = 0.693_147_180_559_945_3
        static let sqrt2 = 1.414_213_562_373_095_1
        static let pi = 3.141_592_653_589_793

        /// Natural logarithm of a positive finite number.
        static func log(_ x: Double) -> Double {
            precondition(x > 0 && x.isFinite, "log(_:) needs a positive finite argument")
            var exponent = Int(x.exponent)
            var m = x.significand // [1, 2)
            if m > sqrt2 {
                m *= 0.5
                exponent += 1
            }
            // log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716.
            let s = (m - 1) / (m + 1)
            let s2 = s * s
            var power = s
            var sum = s
            var k = 3.0
            while k < 30 {
                power *= s2
                sum += power / k
                k += 2
            }
            return 2 * sum + Double(exponent) * ln2
        }

        /// `e` raised to `x`, for `|x| < 700`.
        static func exp(_ x: Double) -> Double {
            precondition(x.magnitude < 700, "exp(_:) argument out of range")
            let k = (x / ln2).rounded()
            let r = x - k * ln2 // |r| <= 0.35
            var term = 1.0
            var sum = 1.0
            var n = 1.0
            while n < 20 {
                term *= r / n
                sum += term
                n += 1
            }
            return Double(sign: .plus, exponent: Int(k), significand: sum)
        }

        /// Cosine of `x` radians for `|x| <= pi / 2` (Taylor series).
        static func cos(_ x: Double) -> Double {
            precondition(x.magnitude <= pi / 2 + 1e-9, "cos(_:) supports |x| <= pi/2 only")
            let x2 = x * x
            var term = 1.0
            var sum = 1.0
            var n = 1.0
            while n < 24 {
                term *= -x2 / (n * (n + 1))
                sum += term
                n += 2
            }
            return sum
        }

        /// `base` raised to `exponent` for a positive base.
        static func pow(_ base: Double, _ exponent: Double) -> Double {
            exp(exponent * log(base))
        }
    }

    // MARK: - CivilDate

    /// Proleptic Gregorian dates as day numbers since 1970-01-01 (Howard Hinnant's algorithms).
    enum CivilDate {
        /// Day number of `year-month-day`: the loader's own (``ValueParsing/days(year:month:day:)``),
        /// which stores dates as these numbers.
        static func days(year: Int, month: Int, day: Int) -> Int {
            Int(ValueParsing.days(year: year, month: month, day: day))
        }

        /// `(year, month, day)` of a day number.
        static func components(of days: Int) -> (year: Int, month: Int, day: Int) {
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let doe = z - era * 146_097
            let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
            let mp = (5 * doy + 2) / 153
            let day = doy - (153 * mp + 2) / 5 + 1
            let month = mp < 10 ? mp + 3 : mp - 9
            return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
        }

        /// 1950-01-01, the earliest licence date.
        static let start = days(year: 1950, month: 1, day: 1)
        /// 2008-01-01, the mode of the licence-date distribution.
        static let peak = days(year: 2008, month: 1, day: 1)
        /// 2025-06-30, the latest date written.
        static let cap = days(year: 2025, month: 6, day: 30)
    }

    // MARK: - Format

    /// Number formatting into raw memory, independent of locale and C library.
    enum Format {
        /// Writes `value` in decimal, zero-padded to `width` digits, at `p` (room for 32 bytes);
        /// returns the number of bytes written.
        @inline(__always)
        static func decimal(_ value: Int, width: Int, into p: UnsafeMutablePointer<UInt8>) -> Int {
            guard value < 0 else { return unsigned(value.magnitude, width: width, into: p) }
            p.pointee = ASCII.minus
            return 1 + unsigned(value.magnitude, width: width, into: p + 1)
        }

        @inline(__always)
        static func unsigned(_ value: UInt, width: Int, into p: UnsafeMutablePointer<UInt8>) -> Int {
            var digits = 1
            var rest = value
            while rest >= 10 {
                rest /= 10
                digits += 1
            }
            let length = max(digits, min(width, 24))
            var q = p + length
            rest = value
            for _ in 0..<length {
                q -= 1
                q.pointee = ASCII.zero &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            return length
        }

        /// Writes `value` rounded to `decimals` (at most 9) places, like `%.Nf` but rounding the
        /// scaled binary value ties-to-even; returns the number of bytes written.
        static func fixed(_ value: Double, decimals: Int, into p: UnsafeMutablePointer<UInt8>) -> Int {
            var scale = 1.0
            var divisor: UInt = 1
            for _ in 0..<decimals {
                scale *= 10
                divisor *= 10
            }
            let scaled = UInt((value.magnitude * scale).rounded(.toNearestOrEven))
            var q = p
            if value < 0 && scaled != 0 {
                q.pointee = ASCII.minus
                q += 1
            }
            q += unsigned(scaled / divisor, width: 1, into: q)
            if decimals > 0 {
                q.pointee = ASCII.dot
                q += 1
                q += unsigned(scaled % divisor, width: decimals, into: q)
            }
            return q - p
        }

        /// Appends the decimal text of `value` to `bytes`.
        static func append(decimal value: Int, width: Int = 1, to bytes: inout [UInt8]) {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
                let length = decimal(value, width: width, into: buffer.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<length]))
            }
        }

        /// Appends the fixed-point text of `value` to `bytes`.
        static func append(fixed value: Double, decimals: Int, to bytes: inout [UInt8]) {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
                let length = fixed(value, decimals: decimals, into: buffer.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<length]))
            }
        }
    }
}
