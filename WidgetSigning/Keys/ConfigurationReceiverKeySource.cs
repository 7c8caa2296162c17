using Microsoft.Extensions.Options;
using WidgetSigning.Primitives;

namespace WidgetSigning.Keys;

/// <summary>
/// Receivers' development keys from configuration: <c>Signing:LocalKeys:&lt;id&gt;</c> for each receiver, and
/// <c>Signing:LocalKey</c> for the default receiver (<c>Receivers:DefaultReceiver</c>). Every key's id is <c>local</c>;
/// nothing is staged or retiring. Used only in development (<see cref="IAzureEnvironment.IsDevelopment"/>; the
/// <see cref="KeyVaultOptions"/> validation refuses it elsewhere), never in Azure.
/// </summary>
internal sealed class ConfigurationReceiverKeySource : IReceiverKeySource
{
    /// <summary>The key id of every configuration key.</summary>
    public const string LocalKeyId = "local";

    private readonly SortedDictionary<string, SigningKey> _keys = new(StringComparer.Ordinal);

    /// <summary>Reads and checks every key once.</summary>
    /// <exception cref="OptionsValidationException">A key is malformed, or a receiver id breaks <see cref="ReceiverId.Rule"/>.</exception>
    public ConfigurationReceiverKeySource(IOptions<LocalKeyOptions> local, IOptions<ReceiverOptions> receivers)
    {
        ArgumentNullException.ThrowIfNull(local);
        ArgumentNullException.ThrowIfNull(receivers);
        DefaultReceiver = receivers.Value.Default;
        foreach (var (id, value) in local.Value.LocalKeys)
        {
            if (ReceiverId.TryParse(id, out var receiver))
            {
                _keys[receiver.Value] = Parse(value, $"{LocalKeyOptions.LocalKeysSetting}:{id}");
            }
        }

        if (DefaultReceiver is { } fallback && !string.IsNullOrWhiteSpace(local.Value.LocalKey))
        {
            _keys[fallback.Value] = Parse(local.Value.LocalKey, LocalKeyOptions.LocalKeySetting);
        }
    }

    /// <inheritdoc />
    public ReceiverId? DefaultReceiver { get; }

    /// <inheritdoc />
    public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        ValueTask.FromResult(new SigningKeys(Find(receiver), []));

    /// <inheritdoc />
    public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        ValueTask.FromResult<IReadOnlyList<SigningKey>>([Find(receiver)]);

    /// <inheritdoc />
    public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
        ValueTask.FromResult(DescribeLoadedKeys(receiver) ?? throw Problems.UnknownReceiver(receiver.Value));

    /// <inheritdoc />
    /// <remarks>Every configured receiver is loaded: its one key, current, with no window.</remarks>
    public IReadOnlyList<KeyDescription>? DescribeLoadedKeys(ReceiverId receiver)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        return _keys.TryGetValue(receiver.Value, out var key) ? [new KeyDescription(key.KeyId, KeyState.Current, null, null, key.CreatedOn) { PublicKey = key.Ed25519 }] : null;
    }

    /// <inheritdoc />
    /// <remarks>The page token is the last receiver id of the page before.</remarks>
    public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pageSize, 1);
        if (pageToken is not null && !ReceiverId.TryParse(pageToken, out _))
        {
            throw new ArgumentException("The page token is not one this service handed out.", nameof(pageToken));
        }

        var page = new List<ReceiverId>(Math.Min(pageSize, _keys.Count));
        string? last = null;
        foreach (var id in _keys.Keys)
        {
            if (pageToken is not null && string.CompareOrdinal(id, pageToken) <= 0)
            {
                continue;
            }

            if (page.Count == pageSize)
            {
                return ValueTask.FromResult(new ReceiverPage(page, last));
            }

            page.Add(ReceiverId.Parse(id));
            last = id;
        }

        return ValueTask.FromResult(new ReceiverPage(page, null));
    }

    private SigningKey Find(ReceiverId receiver)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        return _keys.TryGetValue(receiver.Value, out var key) ? key : throw Problems.UnknownReceiver(receiver.Value);
    }

    /// <summary>Turns <paramref name="setting"/>'s value into a key, or fails naming the setting (never echoing the value).</summary>
    internal static SigningKey Parse(string? value, string setting)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            throw Fail($"{setting} is not set. Set it to base64 of at least {SigningKey.MinimumKeyBytes} random bytes (openssl rand -base64 32), a whsk_ Ed25519 key, or configure Key Vault.");
        }

        return KeyMaterial.TryDecode(value, LocalKeyId, null, out var reason) ?? throw Fail($"{setting} is refused: {reason}.");
    }

    private static OptionsValidationException Fail(string message) =>
        new(LocalKeyOptions.SectionName, typeof(LocalKeyOptions), [message]);
}
