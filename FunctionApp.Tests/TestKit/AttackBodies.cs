using System.Globalization;
using System.Text;

namespace FunctionApp.Tests.TestKit;

/// <summary>Bodies built to hit each slow path of reading and signing, at about a requested size.</summary>
public static class AttackBodies
{
    /// <summary>The shapes the linear-time tests run; each name says what it stresses.</summary>
    public static readonly string[] Shapes =
    [
        "replacement-in-every-string",
        "escapes-in-every-string",
        "maximum-depth",
        "many-tiny-widgets",
        "very-long-strings",
        "huge-number",
        "huge-unknown-member-name",
        "unpaired-escape-at-the-end",
        "raw-control-characters",
        "nbsp-between-tokens",
    ];

    public static byte[] Create(string shape, int bytes) => shape switch
    {
        // Each string holds a U+FFFD, raw or escaped: the seed rescanned the whole body for every one of them.
        "replacement-in-every-string" => Widgets(bytes, i => i % 2 == 0 ? "abc\ufffddef" : @"abc\ufffddef"),
        "escapes-in-every-string" => Widgets(bytes, _ => @"\u00e9\n\\\""\ud83d\ude00\t\u2028x"),
        "maximum-depth" => Encoding.UTF8.GetBytes("{\"widgets\":[" + new string('[', bytes / 2) + new string(']', bytes / 2) + "]}"),
        "many-tiny-widgets" => Widgets(bytes, _ => string.Empty),
        "very-long-strings" => Widgets(1, _ => new string('s', bytes / 10)),
        "huge-number" => Encoding.UTF8.GetBytes("{\"widgets\":[{\"id\":" + new string('7', bytes) + "}]}"),
        "huge-unknown-member-name" => Encoding.UTF8.GetBytes("{\"widgets\":[{\"" + new string('n', bytes) + "\":\"\"}]}"),
        "unpaired-escape-at-the-end" => Append(Widgets(bytes, i => i % 2 == 0 ? "\ufffd" : @"\ufffd"), @"\ud800"),
        // Raw U+0001 (each would be a 6-byte escape in the canonical form), and NBSP where JSON allows only four spaces.
        "raw-control-characters" => Widgets(1, _ => new string('\u0001', bytes / 10)),
        "nbsp-between-tokens" => Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(Widgets(bytes, _ => "x")).Replace("\",\"", "\",\u00a0\"", StringComparison.Ordinal)),
        _ => throw new ArgumentOutOfRangeException(nameof(shape), shape, null),
    };

    /// <summary>
    /// The memory attack: one widget whose property0 fills about <paramref name="bytes"/> with U+0001, raw (the
    /// attack's body: 1 byte in, a 6-byte escape in the canonical form) or escaped as <c>\u0001</c> (valid JSON, as large
    /// canonical as it is), or with raw U+0085 (2 bytes in, 6 out).
    /// </summary>
    public static byte[] ControlCharacterEnvelope(int bytes, string form)
    {
        var (unit, size) = form switch
        {
            "raw" => ("\u0001", 1),
            "escaped" => ("\\u0001", 6),
            "nel" => ("\u0085", 2),
            _ => throw new ArgumentOutOfRangeException(nameof(form), form, null),
        };
        var prefix = "{\"widgets\":[{\"id\":\"6f9619ff-8b86-d011-b42d-00c04fc964ff\",\"property0\":\"";
        var suffix = "\",\"property1\":\"\",\"property2\":\"\",\"property3\":\"\",\"property4\":\"\",\"property5\":\"\",\"property6\":\"\"," +
                     "\"property7\":\"\",\"property8\":\"\",\"property9\":\"\",\"createdUtc\":\"2022-10-07T22:21:35Z\"}]}";
        var count = (bytes - prefix.Length - suffix.Length) / size;
        var text = new StringBuilder(prefix, bytes).Insert(prefix.Length, unit, count).Append(suffix).ToString();
        return Encoding.UTF8.GetBytes(text);
    }

    /// <summary>
    /// A valid envelope of exactly <paramref name="bytes"/> bytes (at least about 300): one widget whose property0 fills
    /// it with plain letters, so its canonical form is the body as sent.
    /// </summary>
    public static byte[] SingleWidgetEnvelope(int bytes)
    {
        var prefix = Encoding.ASCII.GetBytes("{\"widgets\":[{\"id\":\"6f9619ff-8b86-d011-b42d-00c04fc964ff\",\"property0\":\"");
        var suffix = Encoding.ASCII.GetBytes(
            "\",\"property1\":\"\",\"property2\":\"\",\"property3\":\"\",\"property4\":\"\",\"property5\":\"\",\"property6\":\"\"," +
            "\"property7\":\"\",\"property8\":\"\",\"property9\":\"\",\"createdUtc\":\"2022-10-07T22:21:35Z\"}]}");
        var envelope = new byte[bytes];
        envelope.AsSpan().Fill((byte)'s');
        prefix.CopyTo(envelope, 0);
        suffix.CopyTo(envelope, bytes - suffix.Length);
        return envelope;
    }

    /// <summary>Whether a body of <paramref name="shape"/> is a valid envelope (signed) or not (rejected).</summary>
    public static bool IsValid(string shape) => shape is "replacement-in-every-string" or "escapes-in-every-string" or "many-tiny-widgets" or "very-long-strings";

    private static byte[] Widgets(int bytes, Func<int, string> property)
    {
        var json = new StringBuilder("{\"widgets\":[");
        var size = json.Length;
        var i = 0;
        do
        {
            var widget = new StringBuilder(i > 0 ? "," : string.Empty);
            widget.Append("{\"id\":\"").Append(new Guid(i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10).ToString("N"));
            for (var p = 0; p < 10; p++)
            {
                widget.Append("\",\"property").Append(p.ToString(CultureInfo.InvariantCulture)).Append("\":\"").Append(property(i));
            }

            widget.Append("\",\"createdUtc\":\"2022-10-07T22:21:35.1+02:00\"}");
            var text = widget.ToString();
            size += Encoding.UTF8.GetByteCount(text);
            json.Append(text);
            i++;
        }
        while (size < bytes);

        return Encoding.UTF8.GetBytes(json.Append("]}").ToString());
    }

    // Puts a lone escape into the last string, so the whole body is read before the rejection.
    private static byte[] Append(byte[] body, string escape)
    {
        var text = Encoding.UTF8.GetString(body);
        var at = text.LastIndexOf("\",\"createdUtc\"", StringComparison.Ordinal);
        return Encoding.UTF8.GetBytes(text.Insert(at, escape));
    }
}
