/// `244292` as `244,292`: counts in summaries, messages and page footers, for the library and the tool.
package func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)   // not abs(): Int.min has no positive
    var out = ""
    for (k, digit) in digits.enumerated() {
        if k > 0 && (digits.count - k) % 3 == 0 { out += "," }
        out.append(digit)
    }
    return (number < 0 ? "-" : "") + out
}
