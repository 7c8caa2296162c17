using System.Diagnostics;
using System.Text;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using Newtonsoft.Json;

namespace WidgetSigning.Queues;

/// <summary>
/// The claim-check message: a small JSON reference to a blob that holds the envelope, for envelopes too large for
/// a queue message (64 KiB). <c>{"claimCheck":{"container":"widget-claims","blob":"2026/11/21/order-42.json"}}</c>.
/// <c>container</c> may be left out; when present it must be the configured claim-check container.
/// </summary>
internal static class ClaimCheck
{
    /// <summary>The root member that marks a claim check (an envelope's only root member is <c>widgets</c>).</summary>
    public const string MemberName = "claimCheck";

    // Like the envelope reader: invalid UTF-8 throws, a leading BOM is skipped.
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: true, throwOnInvalidBytes: true);

    /// <summary>The member naming the receivers to sign for: an array of receiver ids.</summary>
    public const string ReceiversMemberName = "receivers";

    /// <summary>The optional member carrying the producer's W3C <c>traceparent</c> (last: after <c>claimCheck</c> and <c>receivers</c>).</summary>
    public const string TraceParentMemberName = "traceparent";

    /// <summary>The length of a version-00 <c>traceparent</c>, the only one read.</summary>
    public const int TraceParentLength = 55;

    /// <summary>
    /// Reads the body of <paramref name="message"/> as a claim check. False when the body is not one (its root is not an object whose
    /// first member is <c>claimCheck</c>): the envelope reader then judges it.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: it is a claim check, but a malformed one.</exception>
    public static bool TryRead(SigningQueueMessage message, string allowedContainer, out BlobReference? reference) =>
        TryRead(message, allowedContainer, SignRequest.MaxReceivers, out reference, out _);

    /// <summary>
    /// Reads the body of <paramref name="message"/> as a claim check: <c>claimCheck</c> (required, first) and then
    /// <c>receivers</c> (optional: 1 to <paramref name="maxReceivers"/> receiver ids, none twice), each once, names as
    /// written. False when the body is not one (its root is not an object whose first member is <c>claimCheck</c>): the
    /// envelope reader then judges it.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: it is a claim check, but a malformed one.</exception>
    public static bool TryRead(
        SigningQueueMessage message, string allowedContainer, int maxReceivers, out BlobReference? reference, out IReadOnlyList<ReceiverId>? receivers) =>
        TryRead(message, allowedContainer, maxReceivers, out reference, out receivers, out _);

    /// <summary>
    /// As the overload without <paramref name="producer"/>, and also reads the optional <c>traceparent</c> member: the
    /// W3C trace context of the producer's span, which the signing run's span links to. A value that is not a valid
    /// version-00 <c>traceparent</c> (exactly <see cref="TraceParentLength"/> characters) is ignored, never echoed.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.MessageRejected"/>: it is a claim check, but a malformed one.</exception>
    public static bool TryRead(
        SigningQueueMessage message, string allowedContainer, int maxReceivers, out BlobReference? reference, out IReadOnlyList<ReceiverId>? receivers, out ActivityContext? producer)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentException.ThrowIfNullOrEmpty(allowedContainer);
        reference = null;
        receivers = null;
        producer = null;
        var sawTraceParent = false;
        var started = false;
        using var reader = CreateReader(message.OpenBody());
        try
        {
            if (!reader.Read() || reader.TokenType != JsonToken.StartObject)
            {
                return false;
            }

            // Strict, as the envelope is: member names exactly as written, claimCheck first, then receivers, then
            // traceparent, each at most once (docs/queue.md).
            while (reader.Read() && reader.TokenType == JsonToken.PropertyName)
            {
                var name = (string)reader.Value!;
                if (!started)
                {
                    if (name == MemberName)
                    {
                        reference = ReadReference(reader, allowedContainer);
                    }
                    else if (name == ReceiversMemberName)
                    {
                        throw Invalid(reader, $"'{ReceiversMemberName}' must follow '{MemberName}': name receivers in the claim-check form, after '{MemberName}'.");
                    }
                    else if (IsMisspelt(name, MemberName) || IsMisspelt(name, ReceiversMemberName))
                    {
                        throw Invalid(reader, $"Member names are case-sensitive: '{EchoText.Of(name)}' is not '{MemberName}' or '{ReceiversMemberName}'.");
                    }
                    else
                    {
                        return false;
                    }
                }
                else if (name == ReceiversMemberName && receivers is null && !sawTraceParent)
                {
                    receivers = ReadReceivers(reader, maxReceivers);
                }
                else if (name == TraceParentMemberName && !sawTraceParent)
                {
                    sawTraceParent = true;
                    producer = ReadTraceParent(reader);
                }
                else
                {
                    throw Invalid(reader, $"Unknown, misplaced or duplicate member '{EchoText.Of(name)}'; a claim check has '{MemberName}', then optionally '{ReceiversMemberName}', then optionally '{TraceParentMemberName}', each once, spelt so.");
                }

                started = true;
            }

            if (reader.TokenType != JsonToken.EndObject)
            {
                throw Invalid(reader, "The claim check is not a JSON object.");
            }

            if (reader.Read())
            {
                throw Invalid(reader, "Unexpected content after the claim check.");
            }

            return true;
        }
        catch (JsonReaderException ex)
        {
            if (!started && string.IsNullOrEmpty(ex.Path))
            {
                // Not JSON at the very start: not a claim check; the envelope reader reports it with its own path.
                return false;
            }

            // Newtonsoft's message and path quote the client's member names: bound both.
            throw Problems.MessageRejected(
                $"The claim check is not valid JSON: {EchoText.Of(ex.Message, 256)}", "$." + EchoText.Of(ex.Path, 256), ex);
        }
        catch (DecoderFallbackException)
        {
            return false;
        }
    }

    // Linear in the shorter string; a name longer than the member's is no misspelling of it.
    private static bool IsMisspelt(string name, string member) =>
        name.Length == member.Length && string.Equals(name, member, StringComparison.OrdinalIgnoreCase);

    private static ActivityContext? ReadTraceParent(JsonTextReader reader)
    {
        if (!reader.Read())
        {
            throw Invalid(reader, $"'{TraceParentMemberName}' has no value.");
        }

        // Anything but a well-formed W3C trace context is ignored: a producer's tracing never costs it its message.
        if (reader.TokenType == JsonToken.String && reader.Value is string value && value.Length == TraceParentLength &&
            ActivityContext.TryParse(value, null, out var context))
        {
            return context;
        }

        reader.Skip();
        return null;
    }

    private static ReceiverId[] ReadReceivers(JsonTextReader reader, int maxReceivers)
    {
        if (!reader.Read() || reader.TokenType != JsonToken.StartArray)
        {
            throw Invalid(reader, $"'{ReceiversMemberName}' must be an array of receiver ids.");
        }

        var receivers = new List<ReceiverId>();
        while (reader.Read() && reader.TokenType != JsonToken.EndArray)
        {
            if (receivers.Count == maxReceivers)
            {
                throw Problems.MessageRejected($"'{ReceiversMemberName}' names more than {maxReceivers} receivers (setting {ReceiverOptions.SectionName}:{nameof(ReceiverOptions.MaxPerRequest)}).", $"$.{ReceiversMemberName}");
            }

            var path = "$." + EchoText.Of(reader.Path, 256);
            if (reader.TokenType != JsonToken.String || !ReceiverId.TryParse((string)reader.Value!, out var receiver))
            {
                throw Problems.MessageRejected($"'{EchoText.Of(reader.Value as string)}' is not a receiver id: a receiver id is {ReceiverId.Rule}.", path);
            }

            if (receivers.Contains(receiver))
            {
                throw Problems.MessageRejected($"'{ReceiversMemberName}' names receiver '{receiver}' twice.", path);
            }

            receivers.Add(receiver);
        }

        return receivers.Count > 0
            ? [.. receivers]
            : throw Problems.MessageRejected($"'{ReceiversMemberName}' names no receiver; leave it out to sign for the queue's default receiver.", $"$.{ReceiversMemberName}");
    }

    private static BlobReference ReadReference(JsonTextReader reader, string allowedContainer)
    {
        if (!reader.Read() || reader.TokenType != JsonToken.StartObject)
        {
            throw Invalid(reader, $"'{MemberName}' must be an object with 'blob' (and optionally 'container').");
        }

        string? container = null;
        string? blob = null;
        while (reader.Read() && reader.TokenType == JsonToken.PropertyName)
        {
            var name = (string)reader.Value!;
            if (name == "blob" && blob is null)
            {
                blob = ReadString(reader, "blob");
            }
            else if (name == "container" && container is null)
            {
                container = ReadString(reader, "container");
            }
            else
            {
                // The member name is client text of any length: echo a bounded prefix only.
                throw Invalid(reader, $"Unknown or duplicate member '{EchoText.Of(name)}'; a claim check has 'blob' and optionally 'container'.");
            }
        }

        if (blob is null)
        {
            throw Problems.MessageRejected("The claim check lacks 'blob', the name of the blob that holds the envelope.", $"$.{MemberName}");
        }

        if (ClaimCheckBlobName.Validate(blob) is { } problem)
        {
            throw Problems.MessageRejected($"'blob' {problem}", $"$.{MemberName}.blob");
        }

        if (container is not null && !string.Equals(container, allowedContainer, StringComparison.Ordinal))
        {
            throw Problems.MessageRejected(
                $"Claim checks may only point into the container '{allowedContainer}', not '{EchoText.Of(container)}'.", $"$.{MemberName}.container");
        }

        return new BlobReference(allowedContainer, blob);
    }

    private static string ReadString(JsonTextReader reader, string member)
    {
        if (!reader.Read() || reader.TokenType != JsonToken.String)
        {
            throw Invalid(reader, $"'{member}' must be a JSON string.");
        }

        return (string)reader.Value!;
    }

    private static JsonTextReader CreateReader(Stream body)
    {
        var text = new StreamReader(body, StrictUtf8, detectEncodingFromByteOrderMarks: false, bufferSize: 1024, leaveOpen: false);
        return new JsonTextReader(text)
        {
            ArrayPool = JsonCharArrayPool.Instance,
            DateParseHandling = DateParseHandling.None,
            MaxDepth = 4,
            CloseInput = true,
        };
    }

    private static ProblemException Invalid(JsonTextReader reader, string message) =>
        Problems.MessageRejected(message, string.IsNullOrEmpty(reader.Path) ? "$" : "$." + EchoText.Of(reader.Path, 256));
}
