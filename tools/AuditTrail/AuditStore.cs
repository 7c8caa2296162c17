using System.Globalization;
using System.Xml;
using Azure;
using Azure.Identity;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;

namespace AuditTrail;

/// <summary>The audit container, reached with a connection string or the operator's Azure identity; read only.</summary>
internal sealed class AuditStore
{
    /// <summary>The development account Azurite serves (public, documented by Microsoft; not a secret).</summary>
    public const string AzuriteAccount = "devstoreaccount1";

    private const string AzuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private readonly BlobContainerClient _container;

    private AuditStore(BlobContainerClient container, string description)
    {
        _container = container;
        Description = description;
    }

    /// <summary>Which account and container, for the report (never a key or a connection string).</summary>
    public string Description { get; }

    /// <summary>The store <paramref name="line"/> names; a connection string that does not parse throws <see cref="OperatorException"/>.</summary>
    public static AuditStore Connect(CommandLine line)
    {
        ArgumentNullException.ThrowIfNull(line);
        // The newest service version Azurite 3.35 serves (the repo's emulator; it refuses newer ones with 400
        // InvalidHeaderValue). Azure serves it too, and listing and reading blobs need nothing newer.
        var options = new BlobClientOptions(BlobClientOptions.ServiceVersion.V2025_11_05);
        options.Retry.MaxRetries = 2;
        options.Retry.Delay = TimeSpan.FromMilliseconds(200);
        options.Retry.NetworkTimeout = TimeSpan.FromSeconds(60);

        if (line.AccountUrl is not null)
        {
            var service = new BlobServiceClient(line.AccountUrl, new DefaultAzureCredential(), options);
            return new AuditStore(service.GetBlobContainerClient(line.Container), $"{line.AccountUrl.Host} (your Azure identity), container {line.Container}");
        }

        var (connection, source) = ConnectionString(line.Connection);
        try
        {
            var service = new BlobServiceClient(connection, options);
            return new AuditStore(service.GetBlobContainerClient(line.Container), $"account {service.AccountName} ({source}), container {line.Container}");
        }
        catch (Exception exception) when (exception is FormatException or ArgumentException or InvalidOperationException)
        {
            throw new OperatorException($"The connection string from {source} is not a valid storage connection string.");
        }
    }

    private static (string Connection, string Source) ConnectionString(string? option)
    {
        if (option is not null)
        {
            return (option, "--connection");
        }

        var environment = Environment.GetEnvironmentVariable("AUDIT_STORAGE");
        if (!string.IsNullOrWhiteSpace(environment))
        {
            return (environment, "AUDIT_STORAGE");
        }

        var portText = Environment.GetEnvironmentVariable("AZURITE_BLOB_PORT");
        var port = 10000;
        if (!string.IsNullOrEmpty(portText) &&
            (!int.TryParse(portText, NumberStyles.None, CultureInfo.InvariantCulture, out port) || port is < 1 or > 65535))
        {
            throw new OperatorException("AZURITE_BLOB_PORT must be a port number (1-65535).");
        }

        return ($"DefaultEndpointsProtocol=http;AccountName={AzuriteAccount};AccountKey={AzuriteKey};BlobEndpoint=http://127.0.0.1:{port}/{AzuriteAccount};",
            $"local Azurite at 127.0.0.1:{port}");
    }

    /// <summary>Every blob under <paramref name="prefix"/>, in name order.</summary>
    public async Task<List<StoredBlob>> ListAsync(string prefix, CancellationToken cancellationToken)
    {
        var blobs = new List<StoredBlob>();
        try
        {
            await foreach (var item in _container.GetBlobsAsync(new GetBlobsOptions { Prefix = prefix }, cancellationToken).ConfigureAwait(false))
            {
                blobs.Add(new StoredBlob(item.Name, item.Properties.ContentLength ?? 0, item.Properties.BlobType == BlobType.Append));
            }
        }
        catch (XmlException exception)
        {
            // Azure encodes a name that XML cannot carry (Encoded="true"), which the SDK decodes; an emulator may send it
            // raw, and then no name of the listing can be read. Whoever wrote such a blob broke the contract's names.
            throw new ChainBreakException($"listing of {prefix}: not well-formed XML, so a blob's name holds a character XML cannot carry ({Printable.Clean(exception.Message)})");
        }

        blobs.Sort((a, b) => string.CompareOrdinal(a.Name, b.Name));
        return blobs;
    }

    /// <summary>True when the container exists.</summary>
    public async Task<bool> ExistsAsync(CancellationToken cancellationToken) =>
        (await _container.ExistsAsync(cancellationToken).ConfigureAwait(false)).Value;

    /// <summary>A blob's content as a stream, read as it arrives.</summary>
    public async Task<Stream> OpenAsync(string name, CancellationToken cancellationToken)
    {
        var response = await _container.GetBlobClient(name).DownloadStreamingAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
        return response.Value.Content;
    }

    /// <summary>A small blob's bytes, at most <paramref name="maxBytes"/> + 1 of them (more means too large).</summary>
    public async Task<byte[]> ReadSmallAsync(string name, int maxBytes, CancellationToken cancellationToken)
    {
        using var content = await OpenAsync(name, cancellationToken).ConfigureAwait(false);
        var buffer = new byte[maxBytes + 1];
        var total = 0;
        int read;
        while (total < buffer.Length && (read = await content.ReadAsync(buffer.AsMemory(total), cancellationToken).ConfigureAwait(false)) > 0)
        {
            total += read;
        }

        return buffer[..total];
    }

    /// <summary>Why the store could not be read, for the operator (status and error code; never the request or a key).</summary>
    public static string Describe(Exception exception) => exception switch
    {
        RequestFailedException { Status: 403 } failed => $"access denied ({failed.Status} {failed.ErrorCode}): the identity or key cannot read the container",
        RequestFailedException failed when failed.Status == 0 => $"the store does not answer ({Printable.Clean(failed.InnerException?.Message ?? failed.GetType().Name)})",
        RequestFailedException failed => $"the store answered {failed.Status.ToString(CultureInfo.InvariantCulture)} {failed.ErrorCode}",
        AuthenticationFailedException => "no Azure identity could get a token for storage: sign in with 'az login' (and check the account URL)",
        AggregateException aggregate when aggregate.InnerException is not null => Describe(aggregate.InnerException),
        _ => $"{exception.GetType().Name}: {Printable.Clean(exception.Message)}",
    };
}
