/// ArgumentParser reads every token that starts with `-` as an option, so a negative
/// coordinate given as a value (`regions near -33.9,151.2`) would be taken for a flag and the
/// point reported missing. No option of this CLI is named with a digit, so a token that is a
/// number or a list of numbers is always a value: it is given to the parser with a leading
/// space, which the parser does not read as an option and every coordinate parser trims.
enum NegativeNumberArguments {
    /// `arguments` (without the program name) with every negative number (or list of numbers
    /// starting with a negative one) marked as a value. Tokens after `--` are left alone.
    static func protect(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var afterTerminator = false
        for token in arguments {
            if token == "--" { afterTerminator = true }
            result.append(!afterTerminator && isNegativeNumberList(token) ? " " + token : token)
        }
        return result
    }

    /// `-33.9`, `-33.9,151.2`, `-106,38,-104,40`, `-.5`, `-1e3`: a minus, a digit (perhaps after
    /// a point), then only digits, points, commas, spaces, exponents and signs.
    static func isNegativeNumberList(_ token: String) -> Bool {
        let chars = Array(token)
        guard chars.count >= 2, chars[0] == "-" else { return false }
        let firstDigit = chars[1] == "." ? 2 : 1
        guard firstDigit < chars.count, chars[firstDigit].isASCII, chars[firstDigit].isNumber else { return false }
        return chars.allSatisfy { ($0.isASCII && $0.isNumber) || ".,eE+- ".contains($0) }
    }
}
