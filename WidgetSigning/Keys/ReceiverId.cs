using System.Diagnostics.CodeAnalysis;

namespace WidgetSigning.Keys;

/// <summary>
/// A receiver's id: the party an envelope is signed for, and the name its key is found by. 1–63 characters of
/// <c>a-z</c>, <c>0-9</c> and <c>-</c>, so it is safe as a Key Vault secret name's suffix, a header name's suffix and a
/// log value; nothing else is accepted, so no id can reach another secret, a version path or a query.
/// </summary>
internal sealed record ReceiverId
{
    /// <summary>The longest id accepted.</summary>
    public const int MaxLength = 63;

    /// <summary>The rule, as error messages state it.</summary>
    public const string Rule = "1-63 characters of a-z, 0-9 and '-'";

    private ReceiverId(string value) => Value = value;

    /// <summary>The id.</summary>
    public string Value { get; }

    /// <summary>The id if <paramref name="value"/> follows <see cref="Rule"/>; otherwise false. Linear in the input, and stops at the 64th character.</summary>
    public static bool TryParse([NotNullWhen(true)] string? value, [NotNullWhen(true)] out ReceiverId? receiver)
    {
        receiver = null;
        if (value is null || value.Length is 0 or > MaxLength)
        {
            return false;
        }

        foreach (var c in value)
        {
            if (c is not ((>= 'a' and <= 'z') or (>= '0' and <= '9') or '-'))
            {
                return false;
            }
        }

        receiver = new ReceiverId(value);
        return true;
    }

    /// <summary>The id in <paramref name="value"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="value"/> breaks <see cref="Rule"/>.</exception>
    public static ReceiverId Parse(string value) =>
        TryParse(value, out var receiver) ? receiver : throw new ArgumentException($"A receiver id is {Rule}.", nameof(value));

    /// <inheritdoc />
    public override string ToString() => Value;
}
