#!/usr/bin/env python3
"""Writes the price-list recordings tests/catalog/test_refresh.sh replays (SOURCES.md says what
is real in them and what is illustrative). Run from this folder: python3 make_recordings.py"""

import csv
import io
import itertools
import json

METER = itertools.count(1)  # meter ids: made up, stable from run to run

# Azure Retail Prices API: every key of a real item, in the order the API returns them
# (Microsoft's sample response and a full untrimmed item; SOURCES.md).
def azure_item(sku_size, sku_name, meter, product, price, kind="Consumption", region="eastus",
               term=None):
    item = {"currencyCode": "USD", "tierMinimumUnits": 0.0}
    if term:
        item["reservationTerm"] = term
    item.update({
        "retailPrice": price, "unitPrice": price, "armRegionName": region,
        "location": {"eastus": "US East", "westus": "US West"}[region],
        "effectiveStartDate": "2024-04-01T00:00:00Z",
        "meterId": "00000000-0000-0000-0000-%012d" % next(METER),
        "meterName": meter, "productId": "DZH318Z0TEST", "skuId": "DZH318Z0TEST/0001",
        "productName": product, "skuName": sku_name, "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": "1 Hour",
        "type": kind, "isPrimaryMeterRegion": True, "armSkuName": sku_size})
    return item

H100 = ("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "ND96isrH100v5",
        "Virtual Machines NDsr H100 v5 Series")
page1 = [
    azure_item(H100[0], H100[1], H100[2], H100[3], 98.32),
    azure_item(H100[0], H100[1], H100[2], H100[3] + " Windows", 102.736),
    azure_item(H100[0], H100[1] + " Spot", H100[2] + " Spot", H100[3], 18.169536),
    azure_item(H100[0], H100[1] + " Low Priority", H100[2] + " Low Priority", H100[3] + " Windows", 41.094),
    azure_item(H100[0], H100[1], H100[2], H100[3], 110.0, region="westus"),
    azure_item("Standard_NC24ads_A100_v4", "NC24ads A100 v4", "NC24ads A100 v4",
               "Virtual Machines NCadsA100v4 Series", 3.673),
    azure_item("Standard_D2s_v5", "D2s v5", "D2s v5", "Virtual Machines Dsv5 Series", 0.096),
]
page2 = [
    azure_item(H100[0], H100[1], H100[2], H100[3], 603660.0, kind="Reservation", term="1 Year"),
    azure_item(H100[0], H100[1], H100[2], H100[3], 1292000.0, kind="Reservation", term="3 Years"),
    azure_item(H100[0], H100[1], H100[2], H100[3], 98.32, kind="DevTestConsumption"),
    azure_item("Standard_NC4as_T4_v3", "NC4as T4 v3", "NC4as T4 v3",
               "Virtual Machines NCasT4 v3 Series", 0.526),
    azure_item("Standard_NC4as_T4_v3", "NC4as T4 v3", "NC4as T4 v3",
               "NCasT4 v3 Series Cloud Services", 0.60),
    # A GPU the bundled catalog marks not rentable: the refreshed price lifts the mark.
    azure_item("Standard_ND128isr_NDR_GB200_v6", "ND128isr NDR GB200 v6", "ND128isr NDR GB200 v6",
               "Virtual Machines NDsr GB200 v6 Series", 108.0),
]
for name, items, nxt in (("azure-page-1.json", page1, "__NEXT_PAGE__"), ("azure-page-2.json", page2, None)):
    with open(name, "w") as f:
        json.dump({"BillingCurrency": "USD", "CustomerEntityId": "Default",
                   "CustomerEntityType": "Retail", "Items": items, "NextPageLink": nxt,
                   "Count": len(items)}, f, indent=2)
        f.write("\n")

# AWS EC2 offer file (CSV): the 5 metadata lines and the 91-column header of the real file,
# version 20250912225308 (SOURCES.md), then rows in its shape.
HEADER = ["SKU","OfferTermCode","RateCode","TermType","PriceDescription","EffectiveDate","StartingRange","EndingRange","Unit","PricePerUnit","Currency","RelatedTo","LeaseContractLength","PurchaseOption","OfferingClass","Product Family","serviceCode","Location","Location Type","Instance Type","Current Generation","Instance Family","vCPU","Physical Processor","Clock Speed","Memory","Storage","Network Performance","Processor Architecture","Storage Media","Volume Type","Max Volume Size","Max IOPS/volume","Max IOPS Burst Performance","Max throughput/volume","Provisioned","Tenancy","EBS Optimized","Operating System","License Model","Group","Group Description","Transfer Type","From Location","From Location Type","To Location","To Location Type","usageType","operation","AvailabilityZone","CapacityStatus","ClassicNetworkingSupport","Dedicated EBS Throughput","ECU","Elastic Graphics Type","Enhanced Networking Supported","From Region Code","GPU","GPU Memory","Instance","Instance Capacity - 10xlarge","Instance Capacity - 12xlarge","Instance Capacity - 16xlarge","Instance Capacity - 18xlarge","Instance Capacity - 24xlarge","Instance Capacity - 2xlarge","Instance Capacity - 32xlarge","Instance Capacity - 4xlarge","Instance Capacity - 8xlarge","Instance Capacity - 9xlarge","Instance Capacity - large","Instance Capacity - medium","Instance Capacity - metal","Instance Capacity - xlarge","instanceSKU","Intel AVX2 Available","Intel AVX Available","Intel Turbo Available","MarketOption","Normalization Size Factor","Physical Cores","Pre Installed S/W","Processor Features","Product Type","Region Code","Resource Type","serviceName","SnapshotArchiveFeeType","To Region Code","Volume API Name","VPCNetworkingSupport"]
assert len(HEADER) == 91

SKU = itertools.count(1)  # offer SKUs: made up, stable from run to run

SHAPES = {  # instance -> (vCPU, Memory, Storage, Network, GPU, GPU Memory)
    "p5.48xlarge": ("192", "2048 GiB", "8 x 3840 SSD", "3200 Gigabit", "8", "640 GB"),
    "g5.12xlarge": ("48", "192 GiB", "1 x 3800 GB NVMe SSD", "40 Gigabit", "4", "96 GB"),
    "g5.xlarge": ("4", "16 GiB", "1 x 250 NVMe SSD", "Up to 10 Gigabit", "1", "24 GB"),
    "m5.large": ("2", "8 GiB", "EBS only", "Up to 10 Gigabit", "", ""),
}

def aws_row(instance, term, price, unit="Hrs", tenancy="Shared", os_="Linux", market="OnDemand",
            lease="", option="", klass="", description=None, capacity="Used", operation="RunInstances"):
    vcpu, mem, storage, net, gpu, gpumem = SHAPES[instance]
    sku = "TEST%012d" % next(SKU)
    code = "JRTCKXETXF" if term == "OnDemand" else {"1yr": "4NA7Y494T4", "3yr": "BPH4J8HBKS"}[lease]
    r = dict.fromkeys(HEADER, "")
    r.update({"SKU": sku, "OfferTermCode": code,
              "RateCode": sku + "." + code + (".2TG2D8R56U" if unit == "Quantity" else ".6YS6EN2CT7"),
              "TermType": term,
              "PriceDescription": description or "$%s per On Demand %s %s Instance Hour" % (price, os_, instance),
              "EffectiveDate": "2025-09-01", "StartingRange": "" if unit == "Quantity" else "0",
              "EndingRange": "" if unit == "Quantity" else "Inf", "Unit": unit,
              "PricePerUnit": "%.10f" % price, "Currency": "USD", "LeaseContractLength": lease,
              "PurchaseOption": option, "OfferingClass": klass,
              "Product Family": "Compute Instance", "serviceCode": "AmazonEC2",
              "Location": "US East (N. Virginia)", "Location Type": "AWS Region",
              "Instance Type": instance, "Current Generation": "Yes",
              "Instance Family": "GPU instance" if gpu else "General purpose", "vCPU": vcpu,
              "Memory": mem, "Storage": storage, "Network Performance": net,
              "Processor Architecture": "64-bit", "Tenancy": tenancy, "Operating System": os_,
              "License Model": "No License required",
              "usageType": "BoxUsage:" + instance, "operation": operation,
              "CapacityStatus": capacity, "GPU": gpu, "GPU Memory": gpumem or "NA",
              "MarketOption": market, "Pre Installed S/W": "NA", "Region Code": "us-east-1",
              "serviceName": "Amazon Elastic Compute Cloud", "VPCNetworkingSupport": "true"})
    return r

rows = [
    aws_row("m5.large", "OnDemand", 0.096),
    aws_row("p5.48xlarge", "OnDemand", 98.32),
    aws_row("p5.48xlarge", "OnDemand", 0.0, market="CapacityBlock", operation="RunInstances:CB",
            description="$0.00 per Capacity Block Linux p5.48xlarge Instance Hour"),
    aws_row("p5.48xlarge", "OnDemand", 104.37, os_="Windows", operation="RunInstances:0002"),
    aws_row("p5.48xlarge", "OnDemand", 108.15, tenancy="Dedicated"),
    aws_row("p5.48xlarge", "OnDemand", 98.32, capacity="UnusedCapacityReservation"),
    aws_row("p5.48xlarge", "Reserved", 61.943, lease="1yr", option="No Upfront", klass="standard",
            description="Linux/UNIX (Amazon VPC), p5.48xlarge reserved instance applied"),
    aws_row("p5.48xlarge", "Reserved", 42.275, lease="3yr", option="No Upfront", klass="standard",
            description="Linux/UNIX (Amazon VPC), p5.48xlarge reserved instance applied"),
    aws_row("p5.48xlarge", "Reserved", 0.0, lease="1yr", option="All Upfront", klass="standard",
            description="USD 0.0 per Linux/UNIX (Amazon VPC), p5.48xlarge reserved instance applied"),
    aws_row("p5.48xlarge", "Reserved", 519000, unit="Quantity", lease="1yr", option="All Upfront",
            klass="standard", description="Upfront Fee"),
    aws_row("g5.12xlarge", "OnDemand", 5.672),
    aws_row("g5.xlarge", "OnDemand", 1.006),
    aws_row("g5.xlarge", "Reserved", 0.634, lease="1yr", option="No Upfront", klass="convertible",
            description="Linux/UNIX (Amazon VPC), g5.xlarge reserved instance applied"),
]
out = io.StringIO()
meta = [["FormatVersion", "v1.0"],
        ["Disclaimer", "This pricing list is for informational purposes only. All prices are subject to the additional terms included in the pricing pages on http://aws.amazon.com. All Free Tier prices are also subject to the terms included at https://aws.amazon.com/free/"],
        ["Publication Date", "2025-09-12T22:53:08Z"], ["Version", "20250912225308"],
        ["OfferCode", "AmazonEC2"], HEADER]
for line in meta:
    out.write(",".join('"%s"' % v for v in line) + "\n")
for r in rows:
    out.write(",".join(('"%s"' % r[h].replace('"', '""')) if r[h] != "" else "" for h in HEADER) + "\n")
with open("aws-offer.csv", "w") as f:
    f.write(out.getvalue())
