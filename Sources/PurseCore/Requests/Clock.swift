import Foundation

/// Time as the API shows it: whole Unix seconds.
public enum Clock {
    public static var now: Int { Int(Date().timeIntervalSince1970) }
}
