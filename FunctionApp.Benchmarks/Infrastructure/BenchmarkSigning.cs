using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>The benchmarks' calls into the signer, through its one request type, with the keys at hand.</summary>
internal static class BenchmarkSigning
{
    /// <summary>The receiver the benchmarks sign for.</summary>
    public static readonly ReceiverId Receiver = ReceiverId.Parse("default");

    /// <summary>Signs <paramref name="envelope"/> for one receiver holding <paramref name="key"/> (completes synchronously: the keys are given).</summary>
    public static SignedEnvelope Sign(this EnvelopeSigner signer, WidgetEnvelope envelope, SigningKey key, SignatureForms forms = SignatureForms.Both) =>
        signer.Sign(envelope, [new ReceiverKeys(Receiver, KeysOf(key))], forms);

    /// <summary>Signs <paramref name="envelope"/> for every receiver of <paramref name="receivers"/> at once, each with its own key.</summary>
    public static SignedEnvelope Sign(this EnvelopeSigner signer, WidgetEnvelope envelope, ReceiverKeys[] receivers, SignatureForms forms = SignatureForms.Both)
    {
        ArgumentNullException.ThrowIfNull(signer);
        ArgumentNullException.ThrowIfNull(receivers);
        var ids = new ReceiverId[receivers.Length];
        for (var i = 0; i < ids.Length; i++)
        {
            ids[i] = receivers[i].Receiver;
        }

        var request = new SignRequest { Receivers = ids, Keys = receivers, Forms = forms };
        var pending = signer.SignAsync(envelope, request, CancellationToken.None);
        return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
    }

    // A key source hands out the same SigningKeys for a receiver until its key changes; so do the benchmarks.
    private static SigningKeys KeysOf(SigningKey key)
    {
        var last = Volatile.Read(ref _lastKey);
        if (last is null || !ReferenceEquals(last.Current, key))
        {
            last = new SigningKeys(key, []);
            Volatile.Write(ref _lastKey, last);
        }

        return last;
    }

    private static SigningKeys? _lastKey;

    /// <summary><paramref name="count"/> receivers (<c>r0</c>, <c>r1</c>, …), each with its own random key.</summary>
    public static ReceiverKeys[] Receivers(int count) =>
        [.. Enumerable.Range(0, count).Select(i => new ReceiverKeys(ReceiverId.Parse($"r{i}"), new SigningKeys(new SigningKey($"k{i}", System.Security.Cryptography.RandomNumberGenerator.GetBytes(32)), [])))];
}
