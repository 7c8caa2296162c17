namespace WidgetSigning.Envelopes;

/// <summary>
/// Parses the ISO 8601 date-times docs/signing-contract.md accepts for <c>createdUtc</c>:
/// <c>yyyy-MM-ddTHH:mm:ss</c>, an optional fraction of 1–7 digits, then <c>Z</c>, an offset
/// <c>±HH:mm</c>, or nothing (taken as UTC). Stricter than <see cref="DateTime.Parse(string)"/> on purpose:
/// no culture, no time zone of the server, and nothing that would be rounded away.
/// </summary>
internal static class IsoDateTimeParser
{
    /// <summary>Parses <paramref name="text"/> into a UTC <see cref="DateTime"/>, or explains why not.</summary>
    public static bool TryParse(ReadOnlySpan<char> text, out DateTime utc, out string? error)
    {
        utc = default;
        error = null;
        if (text.Length < 19 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':')
        {
            error = "must be an ISO 8601 date-time such as 2022-10-07T22:21:35.289644Z";
            return false;
        }

        if (!TryDigits(text.Slice(0, 4), out var year) || !TryDigits(text.Slice(5, 2), out var month) ||
            !TryDigits(text.Slice(8, 2), out var day) || !TryDigits(text.Slice(11, 2), out var hour) ||
            !TryDigits(text.Slice(14, 2), out var minute) || !TryDigits(text.Slice(17, 2), out var second))
        {
            error = "must be an ISO 8601 date-time such as 2022-10-07T22:21:35.289644Z";
            return false;
        }

        var rest = text.Slice(19);
        long fractionTicks = 0;
        if (!rest.IsEmpty && rest[0] == '.')
        {
            var digits = 0;
            while (digits + 1 < rest.Length && char.IsAsciiDigit(rest[digits + 1]))
            {
                digits++;
            }

            if (digits == 0)
            {
                error = "has a '.' with no fraction digits after it";
                return false;
            }

            if (digits > 7)
            {
                // .NET keeps 100 ns; more digits would be silently rounded away.
                error = "has more than 7 fraction digits (the precision is 100 ns)";
                return false;
            }

            _ = TryDigits(rest.Slice(1, digits), out var fraction);
            for (var i = digits; i < 7; i++)
            {
                fraction *= 10;
            }

            fractionTicks = fraction;
            rest = rest.Slice(digits + 1);
        }

        var offset = TimeSpan.Zero;
        if (rest.Length == 1 && rest[0] == 'Z')
        {
            rest = default;
        }
        else if (rest.Length == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
                 TryDigits(rest.Slice(1, 2), out var offsetHours) && TryDigits(rest.Slice(4, 2), out var offsetMinutes))
        {
            // Offsets lie within ±14:00: the contract's bound, and DateTimeOffset's.
            if (offsetMinutes > 59 || offsetHours > 14 || (offsetHours == 14 && offsetMinutes != 0))
            {
                error = "has an offset outside -14:00 … +14:00";
                return false;
            }

            offset = new TimeSpan(offsetHours, offsetMinutes, 0);
            if (rest[0] == '-')
            {
                offset = offset.Negate();
            }

            rest = default;
        }

        if (!rest.IsEmpty)
        {
            error = "must end with 'Z', an offset such as +02:00, or nothing (taken as UTC)";
            return false;
        }

        if (month is < 1 or > 12 || day < 1 || year < 1 || day > DateTime.DaysInMonth(year, month) ||
            hour > 23 || minute > 59 || second > 59)
        {
            error = "is not a valid calendar date and time";
            return false;
        }

        var local = new DateTime(year, month, day, hour, minute, second, DateTimeKind.Unspecified).Ticks + fractionTicks;
        var utcTicks = local - offset.Ticks;
        if (utcTicks < DateTime.MinValue.Ticks || utcTicks > DateTime.MaxValue.Ticks)
        {
            error = "is outside the range of representable date-times once converted to UTC";
            return false;
        }

        utc = new DateTime(utcTicks, DateTimeKind.Utc);
        return true;
    }

    private static bool TryDigits(ReadOnlySpan<char> span, out int value)
    {
        value = 0;
        foreach (var c in span)
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }

            value = (value * 10) + (c - '0');
        }

        return true;
    }
}
