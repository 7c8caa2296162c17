using System.Collections.Concurrent;
using Azure.Security.KeyVault.Secrets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Keys;

/// <summary>
/// Every receiver's keys from Key Vault: receiver <c>x</c>'s secret is <c>KeyVault:ReceiverSecretPrefix</c> + <c>x</c>
/// (the default receiver's, <c>KeyVault:SecretName</c>). A receiver is loaded on first use and then refreshed on its own
/// schedule by a <see cref="KeyVaultSigningKeySource"/>, so one receiver's missing, revoked or unreadable key fails that
/// receiver alone.
/// </summary>
public sealed class KeyVaultReceiverKeySource : IReceiverKeySource, IDisposable
{
    private readonly SecretClient _client;
    private readonly KeyVaultOptions _options;
    private readonly TimeProvider _time;
    private readonly ILogger<KeyVaultSigningKeySource> _logger;
    private readonly ConcurrentDictionary<ReceiverId, KeyVaultSigningKeySource> _receivers = new();

    /// <summary>Creates the source; nothing is fetched until a receiver is first used.</summary>
    public KeyVaultReceiverKeySource(
        SecretClient client, IOptions<KeyVaultOptions> options, IOptions<ReceiverOptions> receivers, TimeProvider time, ILogger<KeyVaultSigningKeySource> logger)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(receivers);
        _client = client;
        _options = options.Value;
        _time = time;
        _logger = logger;
        DefaultReceiver = receivers.Value.Default;
    }

    /// <inheritdoc />
    public ReceiverId? DefaultReceiver { get; }

    /// <summary>The secret that holds <paramref name="receiver"/>'s key.</summary>
    public string SecretNameOf(ReceiverId receiver)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        return receiver == DefaultReceiver ? _options.SecretName! : _options.ReceiverSecretPrefix + receiver.Value;
    }

    /// <inheritdoc />
    public async ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        var source = SourceOf(receiver);
        try
        {
            return await source.GetSigningKeysAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (SigningKeyUnavailableException) when (IsUnknown(receiver, source))
        {
            throw Unknown(receiver, source);
        }
        catch (SigningKeyUnavailableException e) when (e.Receiver is null)
        {
            throw new SigningKeyUnavailableException(e.Message, e) { RetryAfter = e.RetryAfter, Receiver = receiver };
        }
    }

    /// <inheritdoc />
    public async ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        var source = SourceOf(receiver);
        var keys = await source.GetVerificationKeysAsync(cancellationToken).ConfigureAwait(false);
        return IsUnknown(receiver, source) ? throw Unknown(receiver, source) : keys;
    }

    /// <inheritdoc />
    public async ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken)
    {
        var source = SourceOf(receiver);
        var keys = await source.DescribeKeysAsync(cancellationToken).ConfigureAwait(false);
        return IsUnknown(receiver, source) ? throw Unknown(receiver, source) : keys;
    }

    /// <inheritdoc />
    public async ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pageSize, 1);
        if (pageToken is not null && !ReceiverId.TryParse(pageToken, out _))
        {
            throw new ArgumentException("The page token is not one this service handed out.", nameof(pageToken));
        }

        var all = new SortedSet<string>(StringComparer.Ordinal);
        await foreach (var secret in _client.GetPropertiesOfSecretsAsync(cancellationToken).ConfigureAwait(false))
        {
            if (DefaultReceiver is { } fallback && string.Equals(secret.Name, _options.SecretName, StringComparison.OrdinalIgnoreCase))
            {
                all.Add(fallback.Value);
            }
            else if (secret.Name.StartsWith(_options.ReceiverSecretPrefix, StringComparison.Ordinal) &&
                ReceiverId.TryParse(secret.Name[_options.ReceiverSecretPrefix.Length..], out var receiver))
            {
                all.Add(receiver.Value);
            }
        }

        var page = new List<ReceiverId>();
        foreach (var id in all)
        {
            if (pageToken is not null && string.CompareOrdinal(id, pageToken) <= 0)
            {
                continue;
            }

            if (page.Count == pageSize)
            {
                return new ReceiverPage(page, page[^1].Value);
            }

            page.Add(ReceiverId.Parse(id));
        }

        return new ReceiverPage(page, null);
    }

    /// <inheritdoc />
    public void Dispose()
    {
        foreach (var source in _receivers.Values)
        {
            source.Dispose();
        }

        _receivers.Clear();
    }

    private KeyVaultSigningKeySource SourceOf(ReceiverId receiver)
    {
        ArgumentNullException.ThrowIfNull(receiver);
        return _receivers.GetOrAdd(receiver, static (r, self) => new KeyVaultSigningKeySource(self._client, self.SecretNameOf(r), self._options, self._time, self._logger), this);
    }

    // The default receiver is configured: its missing secret is an outage (503), not an unknown receiver.
    private bool IsUnknown(ReceiverId receiver, KeyVaultSigningKeySource source) => receiver != DefaultReceiver && source.SecretMissing;

    private UnknownReceiverException Unknown(ReceiverId receiver, KeyVaultSigningKeySource source)
    {
        if (_receivers.TryRemove(new KeyValuePair<ReceiverId, KeyVaultSigningKeySource>(receiver, source)))
        {
            source.Dispose();
        }

        return new UnknownReceiverException(receiver);
    }
}
