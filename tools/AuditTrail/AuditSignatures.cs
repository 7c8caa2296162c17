using System.Globalization;
using System.Text;

namespace AuditTrail;

/// <summary>The byte strings seals and anchors sign (storage contract v1).</summary>
internal static class AuditSignatures
{
    /// <summary>UTF-8 <c>widget-signing-audit-seal:v1:&lt;stream&gt;:&lt;seq&gt;:&lt;prev&gt;</c>.</summary>
    public static byte[] SealMessage(string stream, long seq, string prev) =>
        Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-seal:v1:{stream}:{seq}:{prev}"));

    /// <summary>UTF-8 <c>widget-signing-audit-anchor:v1:&lt;anchor&gt;:&lt;process&gt;:&lt;time&gt;:&lt;prevAnchor&gt;:&lt;stream&gt;:&lt;seq&gt;:&lt;head&gt;</c>.</summary>
    public static byte[] AnchorMessage(string anchor, string process, string time, string prevAnchor, string stream, long seq, string head) =>
        Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-anchor:v1:{anchor}:{process}:{time}:{prevAnchor}:{stream}:{seq}:{head}"));
}
