import Foundation

/// Calendar dates of Unix times, in UTC (card expiry is a month, not an instant).
public enum Calendar {
    private static let utc: Foundation.Calendar = {
        var calendar = Foundation.Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    public static func year(of time: Int) -> Int {
        utc.component(.year, from: Date(timeIntervalSince1970: TimeInterval(time)))
    }

    public static func day(of time: Int) -> Int {
        utc.component(.day, from: Date(timeIntervalSince1970: TimeInterval(time)))
    }

    public static func month(of time: Int) -> Int {
        utc.component(.month, from: Date(timeIntervalSince1970: TimeInterval(time)))
    }
}
