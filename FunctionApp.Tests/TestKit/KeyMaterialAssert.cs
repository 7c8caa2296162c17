namespace FunctionApp.Tests.TestKit;

/// <summary>Asserts that no form of a key (raw bytes, base64, base64url, hex either case, whsec_, or a run of any) appears in a text.</summary>
public static class KeyMaterialAssert
{
    public static void Absent(string text, byte[] key)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(key);
        var base64 = Convert.ToBase64String(key);
        var forms = new[]
        {
            base64,
            base64.TrimEnd('='),
            base64.TrimEnd('=').Replace('+', '-').Replace('/', '_'),
            Convert.ToHexString(key),
            Convert.ToHexString(key).ToLowerInvariant(),
            System.Text.Encoding.Latin1.GetString(key),
        };
        foreach (var form in forms)
        {
            Assert.DoesNotContain(form, text, StringComparison.Ordinal);
        }

        // And no 8-character run of the base64 or base64url either (a truncated or re-wrapped copy), nor 8 bytes of the hex.
        var base64Url = base64.Replace('+', '-').Replace('/', '_');
        for (var i = 0; i + 8 <= base64.Length - 1; i += 4)
        {
            Assert.DoesNotContain(base64.Substring(i, 8), text, StringComparison.Ordinal);
            Assert.DoesNotContain(base64Url.Substring(i, 8), text, StringComparison.Ordinal);
        }

        var hex = Convert.ToHexString(key);
        for (var i = 0; i + 16 <= hex.Length; i += 2)
        {
            Assert.DoesNotContain(hex.Substring(i, 16), text, StringComparison.OrdinalIgnoreCase);
        }
    }
}
