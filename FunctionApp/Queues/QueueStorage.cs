using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Microsoft.WindowsAzure.Storage;
using Microsoft.WindowsAzure.Storage.Blob;
using Microsoft.WindowsAzure.Storage.Queue;

namespace FunctionApp.Queues;

/// <summary>
/// The storage account queue signing works on, from the connection string named by <c>Queues:Connection</c>.
/// Resolved on first use, so an app that only serves HTTP starts without one. Connection strings only: the
/// storage SDK available here (WindowsAzure.Storage 9.3) has no token-credential refresh, so identity-based
/// connections (<c>AzureWebJobsStorage__accountName</c>) are not supported (README).
/// </summary>
public sealed class QueueStorage
{
    private readonly Lazy<CloudStorageAccount> _account;

    /// <summary>Creates the accessor; nothing is read until first use.</summary>
    public QueueStorage(IOptions<QueueOptions> options, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(configuration);
        Options = options.Value;
        _account = new Lazy<CloudStorageAccount>(() => Connect(configuration, Options.Connection));
    }

    /// <summary>The queue settings.</summary>
    public QueueOptions Options { get; }

    /// <summary>The account.</summary>
    /// <exception cref="OptionsValidationException">The connection setting is missing or not a connection string.</exception>
    public CloudStorageAccount Account => _account.Value;

    /// <summary>A queue of the account.</summary>
    public CloudQueue Queue(string name) => Account.CreateCloudQueueClient().GetQueueReference(name);

    /// <summary>A blob container of the account.</summary>
    public CloudBlobContainer Container(string name) => Account.CreateCloudBlobClient().GetContainerReference(name);

    private static CloudStorageAccount Connect(IConfiguration configuration, string settingName)
    {
        var connectionString = configuration.GetConnectionString(settingName) ?? configuration[settingName];
        var setting = $"{QueueOptions.SectionName}:{nameof(QueueOptions.Connection)}";
        if (string.IsNullOrWhiteSpace(connectionString))
        {
            throw new OptionsValidationException(setting, typeof(QueueOptions),
            [
                $"{setting} names the setting '{settingName}', which holds no connection string. Queue signing needs a storage " +
                "connection string there (identity-based connections are not supported by this trigger).",
            ]);
        }

        if (!CloudStorageAccount.TryParse(connectionString, out var account))
        {
            // The value is a secret: never echo it.
            throw new OptionsValidationException(setting, typeof(QueueOptions),
                [$"The setting '{settingName}' (named by {setting}) is not a valid storage connection string."]);
        }

        return account;
    }
}
