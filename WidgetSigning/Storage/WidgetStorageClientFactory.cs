using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Identity;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using Azure.Data.Tables;
using Microsoft.Extensions.Configuration;

namespace WidgetSigning.Storage;

/// <summary>
/// Turns a storage connection setting (<c>WidgetStorage</c>) into Track-2 clients, reading the
/// same shapes as the official 5.x storage extension (its <c>StorageClientProvider</c> over
/// <c>Microsoft.Extensions.Azure</c>'s client factory): either a connection string in <c>&lt;name&gt;</c>, or an
/// identity-based connection <c>&lt;name&gt;__queueServiceUri</c> / <c>__blobServiceUri</c> / <c>__tableServiceUri</c> with
/// <c>__credential</c>=<c>managedidentity</c> and optionally <c>__clientId</c> (a user-assigned identity). Written
/// here because that provider ships only in the 5.x extension, which this registry does not serve.
/// </summary>
public sealed class WidgetStorageClientFactory
{
    /// <summary>The key of the queue service URI under an identity-based connection.</summary>
    public const string QueueServiceUriKey = "queueServiceUri";

    /// <summary>The key of the blob service URI under an identity-based connection.</summary>
    public const string BlobServiceUriKey = "blobServiceUri";

    /// <summary>The key of the table service URI under an identity-based connection (the grants table).</summary>
    public const string TableServiceUriKey = "tableServiceUri";

    /// <summary>The key naming the credential kind; only <c>managedidentity</c> is accepted (or nothing, with an injected credential).</summary>
    public const string CredentialKey = "credential";

    /// <summary>The key of a user-assigned managed identity's client id.</summary>
    public const string ClientIdKey = "clientId";

    private readonly IConfiguration _configuration;
    private readonly TokenCredential? _credential;
    private readonly HttpPipelineTransport? _transport;

    /// <summary>
    /// Creates the factory. <paramref name="credential"/> replaces the managed identity (tests use Azurite's OAuth
    /// mode with a static token); <paramref name="transport"/> replaces the HTTP transport (a test certificate).
    /// </summary>
    public WidgetStorageClientFactory(IConfiguration configuration, TokenCredential? credential = null, HttpPipelineTransport? transport = null)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        _configuration = configuration;
        _credential = credential;
        _transport = transport;
    }

    /// <summary>
    /// The queue service of connection <paramref name="connectionName"/>; <paramref name="perRetryPolicy"/>, when given,
    /// sees every attempt the client makes (a listener counts the receives Storage failed that the retries then hid).
    /// </summary>
    /// <exception cref="InvalidOperationException">The connection is not set, or set in a way that cannot work; the message names the setting.</exception>
    public QueueServiceClient CreateQueueServiceClient(string connectionName, HttpPipelinePolicy? perRetryPolicy = null)
    {
        // Messages travel as the producer wrote them: the trigger decodes base64 itself, so text that is not base64 is kept and rejected.
        var options = new QueueClientOptions { MessageEncoding = QueueMessageEncoding.None };
        Configure(options);
        if (perRetryPolicy is not null)
        {
            options.AddPolicy(perRetryPolicy, HttpPipelinePosition.PerRetry);
        }

        var (connectionString, identity) = Resolve(connectionName, QueueServiceUriKey);
        return connectionString is not null
            ? new QueueServiceClient(connectionString, options)
            : new QueueServiceClient(identity!.Value.Uri, identity.Value.Credential, options);
    }

    /// <summary>The blob service of connection <paramref name="connectionName"/>.</summary>
    /// <exception cref="InvalidOperationException">The connection is not set, or set in a way that cannot work; the message names the setting.</exception>
    public BlobServiceClient CreateBlobServiceClient(string connectionName)
    {
        var options = new BlobClientOptions();
        Configure(options);
        options.AddPolicy(new ExpectedAnswerPolicy(), HttpPipelinePosition.PerCall);
        var (connectionString, identity) = Resolve(connectionName, BlobServiceUriKey);
        return connectionString is not null
            ? new BlobServiceClient(connectionString, options)
            : new BlobServiceClient(identity!.Value.Uri, identity.Value.Credential, options);
    }

    /// <summary>The table service of connection <paramref name="connectionName"/> (the grants table lives there).</summary>
    /// <exception cref="InvalidOperationException">The connection is not set, or set in a way that cannot work; the message names the setting.</exception>
    public TableServiceClient CreateTableServiceClient(string connectionName)
    {
        var options = new TableClientOptions();
        Configure(options);
        var (connectionString, identity) = Resolve(connectionName, TableServiceUriKey);
        return connectionString is not null
            ? new TableServiceClient(connectionString, options)
            : new TableServiceClient(identity!.Value.Uri, identity.Value.Credential, options);
    }

    private void Configure(ClientOptions options)
    {
        if (_transport is not null)
        {
            options.Transport = _transport;
        }
    }

    private (string? ConnectionString, (Uri Uri, TokenCredential Credential)? Identity) Resolve(string connectionName, string uriKey)
    {
        ArgumentException.ThrowIfNullOrEmpty(connectionName);

        // As the WebJobs SDK looks connections up: the name itself, then AzureWebJobs<name>.
        var section = _configuration.GetSection(connectionName);
        if (!section.Exists())
        {
            section = _configuration.GetSection("AzureWebJobs" + connectionName);
        }

        if (!string.IsNullOrWhiteSpace(section.Value))
        {
            return (section.Value, null);
        }

        var uriText = section[uriKey];
        if (string.IsNullOrWhiteSpace(uriText))
        {
            throw new InvalidOperationException(
                $"The storage connection '{connectionName}' is not set: set {connectionName} to a connection string, or {connectionName}__{uriKey} " +
                $"(with {connectionName}__{CredentialKey}=managedidentity and {connectionName}__{ClientIdKey}) for an identity-based connection.");
        }

        if (!Uri.TryCreate(uriText, UriKind.Absolute, out var uri) || (uri.Scheme != Uri.UriSchemeHttps && uri.Scheme != Uri.UriSchemeHttp))
        {
            throw new InvalidOperationException($"{connectionName}__{uriKey} must be an absolute https URI of the storage service.");
        }

        return (null, (uri, CreateCredential(connectionName, section)));
    }

    private TokenCredential CreateCredential(string connectionName, IConfigurationSection section)
    {
        var kind = section[CredentialKey];
        var clientId = section[ClientIdKey];
        if (string.Equals(kind, "managedidentity", StringComparison.OrdinalIgnoreCase))
        {
            if (_credential is not null)
            {
                return _credential;
            }

            if (!string.IsNullOrEmpty(clientId) && !Guid.TryParse(clientId, out _))
            {
                throw new InvalidOperationException($"{connectionName}__{ClientIdKey} must be the client id (a GUID) of a user-assigned managed identity.");
            }

            return new ManagedIdentityCredential(string.IsNullOrEmpty(clientId)
                ? ManagedIdentityId.SystemAssigned
                : ManagedIdentityId.FromUserAssignedClientId(clientId));
        }

        if (string.IsNullOrEmpty(kind) && _credential is not null)
        {
            return _credential;
        }

        // No storage key and no silent fallback to a developer credential: the deployment names its identity.
        throw new InvalidOperationException(
            $"{connectionName}__{CredentialKey} must be 'managedidentity' for an identity-based connection (it is '{Primitives.EchoText.Of(kind ?? string.Empty)}').");
    }
}
